"""FusedTail: the tail of a torchvision training Compose in one fused call.

    Compose([..., RandomHorizontalFlip(p), ToTensor(), Normalize(mean, std),
             RandomErasing(p, scale, ratio)])
    ->  Compose([..., fusednorm.torch.FusedTail(...)])

Where the random decisions come from (`rng`):

- "fusednorm" (default): one 62-bit key per call from torch's generator;
  the flip and the erase rectangle are drawn in C++ from the Philox stream
  of that key, with torchvision's algorithm (the same probabilities and
  get_params' attempts). torch.manual_seed and DataLoader's per-worker
  seeding control them as they control torchvision's, at one torch call per
  image instead of five to nine.
- "torchvision": torch's generator in torchvision's own order (the flip's
  torch.rand, RandomErasing's gate and get_params), so under the same torch
  seed the decisions, and in exact mode the output bits, equal torchvision's
  Compose. The draws cost as much as the fused op itself.

Either way, exact mode's output is torchvision's, bit for bit, for the
decisions made; `decide()` returns them without normalizing anything.

to_device / DeviceCopier: a Loader batch copied to a CUDA device on a side
stream, overlapping the copy with the work on the current stream, under the
rule that keeps such a copy right (see DeviceCopier).
"""


import threading as _threading

import numpy as _np
import torch as _torch
from PIL import Image as _PILImage

import fusednorm
from fusednorm import _fusednorm as _core

__all__ = ["DeviceCopier", "FusedTail", "to_device"]

_KEY_RANGE = 1 << 62
_RNGS = ("fusednorm", "torchvision")
_PIL_MODES = frozenset(_core.Tail.pil_modes)  # read in place
_WIDE_PIL_MODES = frozenset(("I", "F", "I;16", "I;16B", "I;16L", "I;16N"))


class FusedTail:
    """Takes a PIL image, a uint8 tensor (CHW, as torchvision reads
    tensors; HWC when its first dimension is not 1, 3 or 4 and its last
    is) or an HWC array; returns a torch.Tensor (CHW float32 by default,
    like ToTensor + Normalize).
    Keywords (FusedTail.settings lists them with their defaults): flip_p,
    erase_p, erase_scale, erase_ratio (RandomHorizontalFlip's and
    RandomErasing's, with their defaults), preset or mean/std, dtype,
    layout ("chw"), mode ("exact": torchvision's bits; "fast" is faster and
    within 4 ulp-scale of them, see docs/semantics.md), kernel; rng: "fusednorm"
    (default) or "torchvision" (see the module's docstring).

    PIL images of mode L, RGB, RGBA, RGBX and CMYK are read in place; other
    modes go through numpy.asarray (a copy)."""

    settings = _core.Tail.settings  # keywords, defaults, help

    def __init__(self, rng="fusednorm", **kwargs):
        if rng not in _RNGS:
            raise ValueError(f"rng must be one of {_RNGS}, not {rng!r}")
        self._kwargs = fusednorm._snapshot(dict(kwargs, rng=rng))
        self._make()

    def __repr__(self):
        return fusednorm._call_repr("FusedTail", self.settings, self._kwargs)

    def _make(self):
        k = dict(self._kwargs)
        rng = k.pop("rng")
        self._tail = _core.Tail(**k)
        self._bfloat16 = self._tail.dtype == "bfloat16"
        self._layout = self._tail.layout
        self._torchvision = None
        if rng == "torchvision":
            t = self._tail
            self._torchvision = _TorchvisionDraws(
                t.flip_p, t.erase_p, t.erase_scale, t.erase_ratio)

    def __getstate__(self):
        return self._kwargs

    def __setstate__(self, kwargs):
        self._kwargs = kwargs
        self._make()

    def _source(self, image):
        """(the Tail method for image, its arguments before the key,
        (height, width))."""
        if isinstance(image, _torch.Tensor):
            return self._tensor_source(image)
        if isinstance(image, _PILImage.Image):
            return self._pil_source(image)
        if not isinstance(image, _np.ndarray):
            raise TypeError("FusedTail takes a PIL image, a uint8 torch.Tensor "
                            "or a uint8 numpy array, not "
                            f"{type(image).__name__}")
        return self._array_source(image)

    def _array_source(self, array):
        if array.ndim == 2:
            array = array[:, :, None]
        if array.ndim != 3:
            raise ValueError("FusedTail takes one (H, W) or (H, W, C) image, "
                             f"not an array of shape {array.shape}")
        return self._tail.hwc, (array,), array.shape[:2]

    def _pil_source(self, image):
        width, height = image.size
        if width == 0 or height == 0:
            raise ValueError(f"FusedTail: the PIL image is empty ({width}x{height})")
        if image.mode == "1":  # ToTensor's 0/255 for a bilevel image
            return self._array_source(_np.asarray(image, dtype=_np.uint8) * 255)
        if image.mode in _WIDE_PIL_MODES:
            raise TypeError(f"FusedTail takes 8-bit images; PIL mode {image.mode!r} "
                            "is not (ToTensor keeps such values unscaled): "
                            "convert it first")
        if image.mode in _PIL_MODES:
            image.load()
            core = image.im
            # Pillow 9.4's row table; a Pillow without it takes the copy below.
            # The core itself goes along: the call's reference keeps its rows.
            if hasattr(core, "unsafe_ptrs"):
                return self._tail.pil, (core,), (height, width)
        return self._array_source(_np.asarray(image))

    def _tensor_source(self, image):
        if image.dtype != _torch.uint8:
            raise TypeError(f"FusedTail takes uint8 tensors, not {image.dtype}")
        # CHW, as torchvision reads every tensor; HWC only when the first
        # dimension cannot be the channels and the last can.
        if image.dim() == 3 and image.shape[0] not in (1, 3, 4):
            if image.shape[2] not in (1, 3, 4):
                raise ValueError(
                    "FusedTail takes a (C, H, W) uint8 tensor, or (H, W, C), "
                    "with C 1, 3 or 4, not one of shape "
                    f"{tuple(image.shape)}")
        elif image.dim() == 3:
            hwc = image.permute(1, 2, 0)
            if hwc.is_contiguous():  # a CHW view of HWC memory
                return self._tail.hwc, (hwc.numpy(),), hwc.shape[:2]
            if self._layout == "chw":
                planes = image.contiguous().numpy()
                return self._tail.planes, (planes,), planes.shape[1:]
            hwc = _np.ascontiguousarray(image.numpy().transpose(1, 2, 0))
            return self._tail.hwc, (hwc,), hwc.shape[:2]
        array = image.numpy()
        return self._tail.hwc, (array,), array.shape[:2]

    def decide(self, height, width):
        """The decisions a call on a height x width image would make if it
        drew now, as (flip, (top, left, height, width) or None). It makes the
        same torch draws as that call, so it consumes them: to see a call's
        decisions, seed, decide, seed again, call (as the tests do)."""
        height, width = fusednorm.transforms._sizes(height, width)
        if self._torchvision is not None:
            # Its sides checked before the flip's draw (decisions checks them).
            self._tail.decisions(0, height, width)
            return self._torchvision.draw(height, width)
        key = _torch.randint(_KEY_RANGE, ()).item()
        return self._tail.decisions(key, height, width)

    def __call__(self, image):
        method, args, (height, width) = self._source(image)
        if self._torchvision is None:
            out = method(*args, _torch.randint(_KEY_RANGE, ()).item())
        else:
            flip, erase = self._torchvision.draw(height, width)
            out = method(*args, 0, flip=flip, erase=erase or (0, 0, 0, 0))
        if self._bfloat16:
            return _torch.from_numpy(out.view(_np.int16)).view(_torch.bfloat16)
        return _torch.from_numpy(out)


class _TorchvisionDraws:
    """torchvision 0.14's draws from torch's generator, in its order:
    RandomHorizontalFlip's torch.rand(1) < p, RandomErasing's gate, then
    get_params' attempts, which the C++ search (erase_box) makes through
    scale/aspect/randint below. The same torch calls in the same order (each
    comparison in float32, as a tensor comparison makes it), with the
    per-call constants computed once."""

    def __init__(self, flip_p, erase_p, scale, ratio):
        self._flip_p = float(_np.float32(flip_p))
        self._erase_p = float(_np.float32(erase_p))
        self._scale = (float(scale[0]), float(scale[1]))
        self._ratio = (float(ratio[0]), float(ratio[1]))
        log_ratio = _torch.log(_torch.tensor(ratio))
        self._log_ratio = (float(log_ratio[0]), float(log_ratio[1]))

    def draw(self, height, width):
        flip = _torch.rand(1).item() < self._flip_p
        if not _torch.rand(1).item() < self._erase_p:
            return flip, None
        return flip, _core.erase_box(height, width, self._scale, self._ratio, self)

    # The primitives erase_box draws with, as torchvision draws them.
    def scale(self, lo, hi):
        return _torch.empty(1).uniform_(lo, hi).item()

    def aspect(self, lo, hi):  # the ratio's logs are torch's, made once
        return _torch.exp(_torch.empty(1).uniform_(*self._log_ratio)).item()

    def randint(self, lo, hi):
        return _torch.randint(lo, hi + 1, size=(1,)).item()


class DeviceCopier:
    """Copies Loader batches to one CUDA device on a stream of its own.

        copier = fusednorm.torch.DeviceCopier("cuda:0")
        for images, labels in loader:            # fusednorm.Loader(pinned="cuda")
            x = copier(images)                   # queued; usable at once
            loss = model(x).sum()                # on the current stream

    copier(batch) queues batch.to(device, non_blocking=True) on the side
    stream, records a torch.cuda.Event after it, makes the current stream
    wait for that event (so the returned tensor can be used on the current
    stream right away, with no host synchronization) and tells torch's
    allocator that the current stream uses the tensor (record_stream).

    The rule: a transfer slot is not refilled while a copy from it may be in
    flight. A Loader batch (the NumPy array, or the bfloat16 tensor made
    from it) is the lease on its slot: the slot is refilled only once the
    batch and every view of it are gone. A non-blocking copy reads the slot
    until its event completes, so the copier keeps the batch until then --
    the caller may drop its own reference at once. Completed copies are let
    go at the next call, by release(), or by synchronize(); a copier that is
    not called again keeps its last batches (their slots) until then.

    With pinned="cuda" the slots are registered with the CUDA driver for
    every context, torch's included: the copy is direct DMA and truly
    asynchronous (CUDA counts registered memory as page-locked, so torch's
    is_pinned() should say True; not yet seen on a GPU here). From other
    memory torch stages the copy itself; it stays correct, only slower. `stream`: the side
    stream to use (default: a new torch.cuda.Stream on the device).
    RuntimeError when torch has no CUDA device."""

    def __init__(self, device="cuda", stream=None):
        cuda = _require_cuda("DeviceCopier")
        self.device = _torch.device(device)
        if self.device.type != "cuda":
            raise ValueError(f"DeviceCopier copies to a CUDA device, not {device!r}")
        self.stream = stream if stream is not None else cuda.Stream(self.device)
        self._lock = _threading.Lock()
        self._in_flight = []  # (event, the batch, its host tensor)

    def __call__(self, batch):
        """batch on the device: a tensor of its shape and dtype, ready for
        the current stream's work. `batch`: a NumPy array (a Loader batch)
        or a CPU tensor; it is kept until its copy has completed."""
        cuda = _require_cuda("DeviceCopier")
        host = _torch.from_numpy(batch) if isinstance(batch, _np.ndarray) else batch
        if not isinstance(host, _torch.Tensor) or host.device.type != "cpu":
            raise TypeError("DeviceCopier copies a NumPy array or a CPU tensor, "
                            f"not {type(batch).__name__}")
        self.release()
        current = cuda.current_stream(self.device)
        with cuda.stream(self.stream):
            out = host.to(self.device, non_blocking=True)
            event = cuda.Event(blocking=True)  # synchronize() sleeps
            event.record(self.stream)
        with self._lock:  # held from before the copy can be seen complete
            self._in_flight.append((event, batch, host))
        current.wait_event(event)
        out.record_stream(current)
        return out

    def release(self):
        """Lets go the batches whose copies have completed (event.query());
        returns how many are still in flight."""
        with self._lock:
            self._in_flight = [c for c in self._in_flight if not c[0].query()]
            return len(self._in_flight)

    def synchronize(self):
        """Waits for every queued copy, then lets every batch go."""
        with self._lock:
            in_flight, self._in_flight = self._in_flight, []
        for event, _, _ in in_flight:
            event.synchronize()

    @property
    def in_flight(self):
        """Batches held for copies not yet seen complete."""
        with self._lock:
            return len(self._in_flight)


_copiers = {}
_copiers_lock = _threading.Lock()


def to_device(batch, device="cuda"):
    """batch copied to `device` by that device's shared DeviceCopier (one per
    device, made on first use): a side-stream, non-blocking copy that the
    current stream waits for, the batch (its slot) kept until the copy has
    completed. See DeviceCopier for the rule."""
    _require_cuda("to_device")
    key = _torch.device(device)
    if key.type == "cuda" and key.index is None:
        key = _torch.device("cuda", _torch.cuda.current_device())
    with _copiers_lock:
        copier = _copiers.get(str(key))
        if copier is None:
            copier = _copiers[str(key)] = DeviceCopier(key)
    return copier(batch)


def _require_cuda(what):
    cuda = _torch.cuda
    if not cuda.is_available():
        raise RuntimeError(f"fusednorm.torch.{what} needs torch with a CUDA "
                           "device: torch.cuda.is_available() is False "
                           f"(torch {_torch.__version__})")
    return cuda
