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

# The arrays the op writes for each dtype (bfloat16: its bits).
_NUMPY_DTYPES = {"float32": _np.float32, "float16": _np.float16,
                 "bfloat16": _np.uint16}


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
        common = dict(mode=k["mode"], dtype=k["dtype"], layout=k["layout"],
                      kernel=k["kernel"], flip_p=0.0, erase_p=0.0)
        self._op = _fusednorm.FusedNormalization(
            preset=k["preset"], mean=k["mean"], std=k["std"], **common)
        # CHW tensors into CHW outputs: one single-channel op per plane, so
        # the planes are never interleaved (same constants, same bits).
        self._plane_ops = None
        if k["layout"] == "chw":
            self._plane_ops = [
                _fusednorm.FusedNormalization(mean=[m], std=[s], **common)
                for m, s in zip(self._op.mean, self._op.std)]

    def __getstate__(self):
        return self._kwargs

    def __setstate__(self, kwargs):
        self._kwargs = kwargs
        self._make()

    @staticmethod
    def _planes_or_hwc(image):
        """(planes, None) for a CHW uint8 tensor, else (None, an HWC array)."""
        if isinstance(image, _torch.Tensor):
            if image.dtype != _torch.uint8:
                raise TypeError(f"FusedTail takes uint8 tensors, not {image.dtype}")
            if image.dim() == 3 and image.shape[0] in (1, 3, 4) and image.shape[2] not in (1, 3, 4):
                hwc = image.permute(1, 2, 0)
                if hwc.is_contiguous():  # a CHW view of HWC memory
                    return None, hwc.numpy()
                return image.contiguous().numpy(), None
            return None, image.numpy()
        array = _np.asarray(image)  # PIL images: no copy beyond PIL's own
        if array.ndim == 2:
            array = array[:, :, None]
        return None, array

    def _normalize_planes(self, planes, flip, erase):
        if self._plane_ops is None or len(self._plane_ops) not in (1, planes.shape[0]):
            hwc = _np.ascontiguousarray(planes.transpose(1, 2, 0))
            return self._op(hwc, flip=flip, erase=erase)
        ops = self._plane_ops * (planes.shape[0] if len(self._plane_ops) == 1 else 1)
        dtype = self._op.dtype
        out = _np.empty(planes.shape, _NUMPY_DTYPES[dtype])
        for c, op in enumerate(ops):
            op(planes[c][:, :, None], out=out[c:c + 1], flip=flip, erase=erase)
        if dtype == "bfloat16":
            return _torch.from_numpy(out.view(_np.int16)).view(_torch.bfloat16)
        return out

    def __call__(self, image):
        planes, hwc = self._planes_or_hwc(image)
        height, width = (planes.shape[1:] if planes is not None else hwc.shape[:2])
        channels = planes.shape[0] if planes is not None else hwc.shape[2]
        flip = bool(_torch.rand(1) < self._flip_p)
        erase = None
        if _torch.rand(1) < self._erase_p:
            shape = _torch.zeros(1).expand(channels, height, width)
            i, j, h, w, _ = _transforms.RandomErasing.get_params(
                shape, scale=self._scale, ratio=self._ratio, value=[0])
            if h < height or w < width:  # get_params' "no rectangle" result
                erase = (i, j, h, w)
        erase = erase or (0, 0, 0, 0)
        out = (self._normalize_planes(planes, flip, erase) if planes is not None
               else self._op(hwc, flip=flip, erase=erase))
        return out if isinstance(out, _torch.Tensor) else _torch.from_numpy(out)

    def __repr__(self):
        return f"FusedTail({self._kwargs})"
