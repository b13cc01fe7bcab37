"""fusednorm: ToTensor + RandomHorizontalFlip + Normalize + RandomErasing in one
pass, and a multi-threaded loader around it, from Python.

    import fusednorm
    op = fusednorm.FusedNormalization(preset="imagenet", dtype="float16",
                                      layout="chw", mode="exact", erase_p=0.5)
    y = op(image)                  # uint8 (H, W, C) or (N, H, W, C) array
    for images, labels in fusednorm.Loader(data="synthetic", batch_size=64):
        ...                        # views of the loader's transfer slots

Arrays cross without copies. bfloat16 outputs come back as torch.bfloat16
tensors when torch is installed, else as uint16 arrays holding the bits.
Errors raise ValueError (a bad argument), FileNotFoundError (a missing
path), TypeError (an array of the wrong type) or RuntimeError.
"""

import atexit as _atexit
import weakref as _weakref

import numpy as _np

from fusednorm import _fusednorm

__all__ = ["FusedNormalization", "Loader", "resized_crop", "resize_kernels"]
__version__ = "0.1.0"  # the wheel's version (python/make_wheel.py reads it)


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _as_buffer(x):
    """A NumPy view of a torch tensor or an __array_interface__ object."""
    if hasattr(x, "numpy") and hasattr(x, "dtype") and not isinstance(x, _np.ndarray):
        torch = _torch()
        if torch is not None and isinstance(x, torch.Tensor):
            if x.dtype == torch.bfloat16:
                x = x.view(torch.int16)
            return x.detach().numpy()
    if isinstance(x, (bytes, bytearray, memoryview, _np.ndarray)):
        return x
    return _np.asarray(x)


def _bfloat16(array):
    torch = _torch()
    if torch is None:
        return array
    return torch.from_numpy(array.view(_np.int16)).view(torch.bfloat16)


class FusedNormalization:
    """The fused op. Keywords as the C++ FusedNormalizationOptions:
    preset ("none", "mnist", "cifar", "imagenet", "mlperf") or mean/std,
    dtype ("float32", "float16", "bfloat16"), layout ("hwc", "hwc4", "chw";
    default hwc for float32, else hwc4), mode ("fast", "exact": torchvision's
    bits), flip_p, erase_p (0: no erasing), erase_scale, erase_ratio, seed,
    kernel (a variant id; default the best for this CPU)."""

    def __init__(self, **kwargs):
        self._op = _fusednorm.FusedNormalization(**kwargs)

    def __call__(self, image, out=None, flip=None, erase=None, index=0, epoch=0):
        """Normalizes a uint8 (H, W, C) image or (N, H, W, C) batch.

        Image n's decisions come from the stream (seed, epoch, index + n);
        flip=True/False and erase=(top, left, height, width) override them.
        Writes into `out` (an array or tensor of the output's dtype and
        shape) when given, else returns a new array."""
        target = None if out is None else _as_buffer(out)
        result = self._op(_as_buffer(image), out=target, flip=flip,
                          erase=None if erase is None else tuple(erase),
                          index=index, epoch=epoch)
        if out is not None:
            return out
        return _bfloat16(result) if self.dtype == "bfloat16" else result

    def decisions(self, index, epoch, height, width):
        """(flip, (top, left, height, width) or None) for that image."""
        return self._op.decisions(index, epoch, height, width)

    def kernel(self, channels=3):
        """The id of the kernel variant used for `channels` channels."""
        return self._op.kernel(channels)

    dtype = property(lambda self: self._op.dtype)
    # The float32 mean and std per channel (one value for preset "none").
    mean = property(lambda self: self._op.mean)
    std = property(lambda self: self._op.std)
    layout = property(lambda self: self._op.layout)
    mode = property(lambda self: self._op.mode)

    def __getstate__(self):
        return {"op": self._op}

    def __setstate__(self, state):
        self._op = state["op"]


def resized_crop(image, top, left, height, width, size, filter="pil", kernel=""):
    """The box (top, left, height, width) of a uint8 (H, W, C) image resized
    to size ((H, W) or an int for a square), as RandomResizedCrop does it.

    filter "pil" (default) gives Pillow's bits: the same as
    PIL.Image.fromarray(image).crop((left, top, left + width, top + height))
    .resize((W, H), Image.BILINEAR). "tensor" is torchvision's tensor route
    with antialias=True (within 1), "bilinear" without antialiasing. kernel
    forces a resize row (see resize_kernels()). Returns a new array."""
    if isinstance(size, int):
        size = (size, size)
    return _fusednorm.resized_crop(_as_buffer(image), top, left, height, width,
                                   tuple(size), filter=filter, kernel=kernel)


def resize_kernels():
    """The ids of the resize rows this CPU can run ("scalar", "highway", ...)."""
    return _fusednorm.resize_kernels()


_live_loaders = _weakref.WeakSet()


class Loader:
    """Batches of the standard recipe (`fusednorm run`'s): keywords data
    (an image folder, WebDataset shards "a.tar,b.tar" or
    "train-{000000..000146}.tar", or "synthetic"), dataset/path (mnist,
    cifar10), split, images, batch_size, threads, seed, epoch, preset, mean,
    std, dtype, layout, mode, kernel, size, resize_filter ("pil", "tensor",
    "bilinear"), on_error ("fail", or "skip": an unreadable sample is
    zero-filled with label -1), decode_scale (reduced-size JPEG decoding
    where crops allow: faster, other pixels), rank, world_size, pinned, copy.

    Iterating runs one epoch (the next iteration the following one) and
    yields (images, labels) NumPy arrays. Without copy=True the images are
    views of a transfer slot, valid until the next batch. The GIL is
    released while the workers run and while next() waits."""

    def __init__(self, **kwargs):
        self._loader = _fusednorm.Loader(**kwargs)
        self._dtype = kwargs.get("dtype", "float32")
        _live_loaders.add(self)

    def __iter__(self):
        iter(self._loader)
        return self

    def __next__(self):
        images, labels = next(self._loader)
        if self._dtype == "bfloat16":
            images = _bfloat16(images)
        return images, labels

    def __len__(self):
        return len(self._loader)

    def describe(self):
        return self._loader.describe()

    def close(self):
        """Stops the workers (also on exit and when the loader is freed)."""
        self._loader.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@_atexit.register
def _close_all():
    for loader in list(_live_loaders):
        loader.close()
