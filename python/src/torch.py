"""FusedTail: the tail of a torchvision training Compose in one fused call.

    Compose([..., RandomHorizontalFlip(p), ToTensor(), Normalize(mean, std),
             RandomErasing(p, scale, ratio)])
    ->  Compose([..., fusednorm.torch.FusedTail(...)])

The random decisions are drawn from torch's generator in torchvision's order
(the flip's torch.rand, then RandomErasing's gate and get_params), so with
the same torch seed the decisions, and in exact mode the output bits, equal
torchvision's. DataLoader workers seed torch per worker, as for torchvision.
"""

import numpy as _np
import torch as _torch
from torchvision import transforms as _transforms

import fusednorm as _fusednorm

__all__ = ["FusedTail"]


class FusedTail:
    """Takes a PIL image, a uint8 CHW/HWC tensor or an HWC array; returns a
    torch.Tensor (CHW float32 by default, like ToTensor + Normalize).
    mode="exact" (default) gives torchvision's bits; "fast" is faster and
    within 4 ulp-scale of them (see the README)."""

    def __init__(self, flip_p=0.5, erase_p=0.5, erase_scale=(0.02, 0.33),
                 erase_ratio=(0.3, 3.3), preset="imagenet", mean=None, std=None,
                 mode="exact", dtype="float32", layout="chw", kernel=""):
        self._kwargs = dict(flip_p=flip_p, erase_p=erase_p,
                            erase_scale=tuple(erase_scale),
                            erase_ratio=tuple(erase_ratio), preset=preset,
                            mean=mean, std=std, mode=mode, dtype=dtype,
                            layout=layout, kernel=kernel)
        self._make()

    def _make(self):
        k = dict(self._kwargs)
        self._flip_p, self._erase_p = k["flip_p"], k["erase_p"]
        self._scale, self._ratio = k["erase_scale"], k["erase_ratio"]
        self._op = _fusednorm.FusedNormalization(
            preset=k["preset"], mean=k["mean"], std=k["std"], mode=k["mode"],
            dtype=k["dtype"], layout=k["layout"], kernel=k["kernel"],
            flip_p=0.0, erase_p=0.0)

    def __getstate__(self):
        return self._kwargs

    def __setstate__(self, kwargs):
        self._kwargs = kwargs
        self._make()

    @staticmethod
    def _hwc(image):
        if isinstance(image, _torch.Tensor):
            if image.dtype != _torch.uint8:
                raise TypeError(f"FusedTail takes uint8 tensors, not {image.dtype}")
            if image.dim() == 3 and image.shape[0] in (1, 3, 4) and image.shape[2] not in (1, 3, 4):
                image = image.permute(1, 2, 0).contiguous()  # CHW -> HWC
            return image.numpy()
        array = _np.asarray(image)  # PIL images: no copy beyond PIL's own
        if array.ndim == 2:
            array = array[:, :, None]
        return array

    def __call__(self, image):
        hwc = self._hwc(image)
        height, width = hwc.shape[0], hwc.shape[1]
        flip = bool(_torch.rand(1) < self._flip_p)
        erase = None
        if _torch.rand(1) < self._erase_p:
            shape = _torch.zeros(1).expand(hwc.shape[2], height, width)
            i, j, h, w, _ = _transforms.RandomErasing.get_params(
                shape, scale=self._scale, ratio=self._ratio, value=[0])
            if h < height or w < width:  # get_params' "no rectangle" result
                erase = (i, j, h, w)
        out = self._op(hwc, flip=flip, erase=erase or (0, 0, 0, 0))
        return out if isinstance(out, _torch.Tensor) else _torch.from_numpy(out)

    def __repr__(self):
        return f"FusedTail({self._kwargs})"
