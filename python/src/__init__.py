"""fusednorm: ToTensor + RandomHorizontalFlip + Normalize + RandomErasing in one
pass, and a multi-threaded loader around it, from Python.

    import fusednorm
    op = fusednorm.FusedNormalization(preset="imagenet", dtype="float16",
                                      layout="chw", mode="exact", erase_p=0.5)
    y = op(image)                  # uint8 (H, W, C) or (N, H, W, C) array
    for images, labels in fusednorm.Loader(dataset="synthetic", batch_size=64):
        ...                        # views of the loader's transfer slots

fusednorm.transforms has torchvision's transforms by name (the Loader's
train_transforms, val_transforms and batch_transforms take them, or
torchvision's own).

Arrays cross without copies. bfloat16 outputs come back as torch.bfloat16
tensors when torch is installed, else as uint16 arrays holding the bits.
Errors raise ValueError (a bad value), TypeError (a value or array of the
wrong type, an unknown keyword), FileNotFoundError (a missing path),
MemoryError, fusednorm.SampleError (a sample that cannot be read) or
RuntimeError.
"""

import atexit as _atexit
import copy as _copy
import json as _json
import numbers as _numbers
import operator as _operator
from collections.abc import Mapping as _Mapping
import os as _os
import sys as _sys
import weakref as _weakref

import numpy as _np

from fusednorm import _fusednorm
from fusednorm import transforms

# torchvision pads PIL images with np.pad, whose long reflecting pads changed
# in NumPy 2.0: RandomCrop gives the installed NumPy's pixels.
_fusednorm._set_numpy1_padding(int(_np.__version__.split(".")[0]) < 2)

__all__ = ["FusedNormalization", "Loader", "SampleError", "resized_crop",
           "resize_kernels", "transforms"]
__version__ = "0.1.0"  # the wheel's version (python/make_wheel.py reads it)


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _as_buffer(x, name="image"):
    """A NumPy view of a torch tensor or an __array_interface__ object.
    A tensor must be on the CPU; `out` (name "out") must not require grad:
    the op writes it outside autograd, which torch's own out= refuses."""
    if hasattr(x, "numpy") and hasattr(x, "dtype") and not isinstance(x, _np.ndarray):
        torch = _torch()
        if torch is not None and isinstance(x, torch.Tensor):
            if x.device.type != "cpu":
                raise ValueError(f"{name} is on {x.device}: fusednorm's op reads and "
                                 "writes CPU memory (the Loader's pinned= moves batches)")
            if name == "out" and x.requires_grad:
                raise ValueError("out requires grad: the op would write it outside "
                                 "autograd; pass a tensor without requires_grad")
            if x.dtype == torch.bfloat16:
                x = x.view(torch.int16)
            return x.detach().numpy()
    if isinstance(x, (bytes, bytearray, memoryview, _np.ndarray)):
        return x
    if not (hasattr(x, "__array__") or hasattr(x, "__array_interface__")):
        # np.asarray would make an object or a str array of it.
        raise TypeError(f"{name} must be a NumPy array or a CPU tensor, not "
                        f"{type(x).__name__}")
    return _np.asarray(x)


def _bfloat16(array):
    torch = _torch()
    if torch is None:
        return array
    return torch.from_numpy(array.view(_np.int16)).view(torch.bfloat16)


def _snapshot(kwargs):
    """The keywords as given now: copies of their lists and arrays, which
    the caller may change later. An op has read their values; its pickle
    and repr must say the same (a value that cannot be copied is kept, for
    the op's own check to name)."""
    out = {}
    for key, value in kwargs.items():
        try:
            out[key] = _copy.deepcopy(value)
        except Exception:  # noqa: BLE001 - refused by the op with its name
            out[key] = value
    return out


def _call_repr(name, settings, kwargs):
    """name(key=value, ...): the keywords given, in the order of `settings`
    ((name, default, help) rows), as torchvision's transforms print."""
    order = {row[0]: i for i, row in enumerate(settings)}
    items = sorted(kwargs.items(), key=lambda kv: order.get(kv[0], len(order)))
    return f"{name}(" + ", ".join(f"{k}={v!r}" for k, v in items) + ")"


class FusedNormalization:
    """The fused op. Keywords as the C++ FusedNormalizationOptions:
    preset ("none", "mnist", "cifar", "imagenet", "mlperf") or mean/std,
    dtype ("float32", "float16", "bfloat16"), layout ("hwc", "hwc4", "chw";
    default hwc for float32, else hwc4), mode ("fast", "exact": torchvision's
    bits), flip_p, erase_p (0: no erasing), erase_scale, erase_ratio, seed,
    kernel (a variant id; default the best for this CPU)."""

    settings = _fusednorm.FusedNormalization.settings

    def __init__(self, **kwargs):
        self._kwargs = _snapshot(kwargs)
        self._op = _fusednorm.FusedNormalization(**self._kwargs)

    def __repr__(self):
        return _call_repr("FusedNormalization", self.settings, self._kwargs)

    def __call__(self, image, out=None, flip=None, erase=None, index=0, epoch=0):
        """Normalizes a uint8 (H, W, C) image or (N, H, W, C) batch.

        Image n's decisions come from the stream (seed, epoch, index + n);
        flip=True/False and erase=(top, left, height, width) override them.
        Writes into `out` (an array or tensor of the output's dtype and
        shape) when given, else returns a new array."""
        target = None if out is None else _as_buffer(out, "out")
        if flip is not None and not isinstance(flip, (bool, _np.bool_)):
            raise TypeError(f"flip must be None, True or False, not "
                            f"{transforms._type_name(flip)}")
        result = self._op(_as_buffer(image), out=target,
                          flip=None if flip is None else bool(flip),
                          erase=_erase_box(erase),
                          **transforms._position(epoch, index=index))
        if out is not None:
            return out
        return _bfloat16(result) if self.dtype == "bfloat16" else result

    def decisions(self, index, epoch, height, width):
        """(flip, (top, left, height, width) or None) for that image."""
        at = transforms._position(epoch, index=index)
        return self._op.decisions(at["index"], at["epoch"],
                                  *transforms._sizes(height, width))

    def kernel(self, channels=3):
        """The id of the kernel variant used for `channels` channels."""
        return self._op.kernel(transforms._int("channels", channels, 2**31 - 1))

    dtype = property(lambda self: self._op.dtype)
    # The float32 mean and std per channel (one value, serving any channel
    # count, for preset "none" or when one of each was given).
    mean = property(lambda self: self._op.mean)
    std = property(lambda self: self._op.std)
    layout = property(lambda self: self._op.layout)
    mode = property(lambda self: self._op.mode)

    def __getstate__(self):
        return {"op": self._op, "kwargs": self._kwargs}

    def __setstate__(self, state):
        self._op = state["op"]
        self._kwargs = state.get("kwargs", {})


def _erase_box(erase):
    """erase= of FusedNormalization's call: None, or (top, left, height,
    width) as ints, each named when it is wrong."""
    if erase is None:
        return None
    try:
        box = tuple(erase)
    except TypeError:
        raise TypeError(f"erase must be None or (top, left, height, width), "
                        f"not {transforms._type_name(erase)}") from None
    if len(box) != 4:
        raise ValueError(f"erase = {box}: must be (top, left, height, width)")
    names = ("erase top", "erase left", "erase height", "erase width")
    return tuple(transforms._int(n, v, 2**63 - 1) for n, v in zip(names, box))


def resized_crop(image, top, left, height, width, size, filter="pil", kernel=""):
    """The box (top, left, height, width) of a uint8 (H, W, C) image resized
    to size ((H, W) or an int for a square), as RandomResizedCrop does it.

    filter "pil" (default) gives Pillow's bits: the same as
    PIL.Image.fromarray(image).crop((left, top, left + width, top + height))
    .resize((W, H), Image.BILINEAR) with Pillow up to 12.1; "pil12.2" and
    "pil13" give those of Pillow 12.2-12.3 and 13.0, whose passes run in
    another order for some boxes. "tensor" is torchvision's tensor route
    with antialias=True (within 1), "bilinear" without antialiasing. kernel
    forces a resize row (see resize_kernels()). Returns a new array."""
    if isinstance(size, _numbers.Integral) and not isinstance(size, bool):
        size = (size, size)  # an int, NumPy's too
    return _fusednorm.resized_crop(_as_buffer(image), top, left, height, width,
                                   tuple(size), filter=filter, kernel=kernel)


def resize_kernels():
    """The ids of the resize rows this CPU can run ("scalar", "highway", ...)."""
    return _fusednorm.resize_kernels()


_live_loaders = _weakref.WeakSet()

SampleError = _fusednorm.SampleError


class Loader:
    """Batches of a training recipe (`fusednorm run`'s), one epoch per
    iteration. Keywords (the same names, defaults and checks as `fusednorm
    run`'s flags; listed with their defaults in Loader.settings):

    data (an image folder, or WebDataset shards "a.tar,b.tar" or
    "train-{000000..000146}.tar"), dataset/path (synthetic, the default;
    mnist, cifar10), split, images, batch_size, threads, epoch (the first),
    seed, preset, mean, std, dtype, layout, mode, kernel, size,
    resize_filter ("pil", "pil12.2", "pil13", "tensor", "bilinear"),
    on_error ("fail", or "skip": an unreadable sample is zero-filled with
    label -1), decode_scale (reduced-size JPEG decoding where crops allow:
    faster, other pixels), rank, world_size, drop_last, pinned,
    cuda_device, copy.

    train_transforms and val_transforms: the splits' transforms, as
    fusednorm.transforms objects, torchvision's own (v1 or v2, a list or a
    Compose), or the text `fusednorm run --train-transforms` takes; a
    Normalize among them sets mean and std, ToTensor and its look-alikes
    mark where the tensor starts (a list with ToTensor and no Normalize
    gives ToTensor's [0, 1] values, as torchvision does, unless preset,
    mean or std is given; both splits share one normalization). Default: RandomResizedCrop(size), flip,
    RandomErasing(0.5) for train; Resize(size * 256 / 224), CenterCrop(size)
    for val. batch_transforms: MixUp, CutMix or RandomChoice of them, run on
    each training batch. num_classes: the training split yields float32 soft
    targets (batch, num_classes) instead of labels, smoothed by
    label_smoothing.

    pinned: "none" (False, the default), "mlock" (True: the OS will not
    swap the slots) or "cuda": every slot is registered with the CUDA
    driver (libcuda.so.1, loaded when the first epoch starts; without it
    that iter() raises RuntimeError naming it) for every CUDA context of
    the process, torch's included, so copies from a batch to cuda_device
    are direct and asynchronous. Such a copy reads the batch until it
    completes: with torch's CUDA initialized, each next() holds the batch
    before it until the work torch had queued by then on the current
    stream (of the current device, and of cuda_device when given) has run.
    So torch.from_numpy(images).cuda(non_blocking=True) in the loop is safe
    when the copy is queued there, from the loop's thread, before the next
    batch is asked for; copies on other streams, other threads or ahead of
    the loop are yours to order (fusednorm.torch.to_device holds its own).
    In a child made by fork() pinned="cuda" raises RuntimeError naming
    fork, and so does an iterator of an epoch under way at the fork (its
    workers are the parent's); a new iter(loader) works there.

    Under torch.distributed (initialized), or torchrun's environment (RANK,
    WORLD_SIZE), rank and world_size default to this process's: global
    batch b goes to rank b % world_size, and every rank yields len(loader)
    batches -- without drop_last a rank a batch short gets a last batch
    that continues the epoch's order past its end, wrapping around to its
    start (as DistributedSampler pads);
    with drop_last=True the last incomplete round is dropped. The ranks'
    other samples are disjoint and together are the single-process epoch.

    Each iter(loader) is an independent iterator over the next epoch,
    yielding (images, labels) NumPy arrays. Without copy=True the images are
    views of a transfer slot that own it: the slot is refilled only once the
    array and its views are gone, so an array you hold always keeps its
    batch. The GIL is released while the workers run and while next() waits;
    Ctrl-C interrupts Loader() while it opens remote shards and a waiting
    next(). A sample that cannot be read raises
    fusednorm.SampleError (on_error="fail"), or is listed in the iterator's
    and the Loader's `skipped` (on_error="skip").

    state_dict() and load_state_dict() resume a stopped run mid-epoch: the
    same bytes on any thread count, and on another world size each batch
    left once with its bytes: see their docstrings."""

    settings = _fusednorm.Loader.settings

    def __init__(self, **kwargs):
        self._kwargs = _lists_as_text(kwargs)
        self._loader = _fusednorm.Loader(**_distributed(self._kwargs))
        self._bfloat16 = kwargs.get("dtype") == "bfloat16"
        _live_loaders.add(self)

    def __repr__(self):
        """Loader(key=value, ...) of the keywords given (transform lists as
        their text; URLs in data= without user, password or query)."""
        kwargs = dict(self._kwargs)
        if isinstance(kwargs.get("data"), (str, bytes)):  # no credentials, no queries
            kwargs["data"] = _os.fsdecode(_fusednorm._shown_data(
                _os.fsencode(kwargs["data"])))
        return _call_repr("Loader", self.settings, kwargs)

    def __iter__(self):
        guard = None
        if self._kwargs.get("pinned") == "cuda":
            guard = _CopyGuard(self._kwargs.get("cuda_device"))
        return _Epoch(iter(self._loader), self._bfloat16, guard)

    def __len__(self):
        return len(self._loader)

    def __getitem__(self, key):
        # torch's DataLoader takes an object with __len__ for a dataset of
        # samples and indexes it: say what a Loader is instead.
        raise TypeError(
            "a fusednorm.Loader is not indexed: iterate it (for images, labels "
            "in loader); it makes whole batches with its own threads, "
            "shuffling and decisions, so it takes torch.utils.data."
            "DataLoader's place rather than going inside one")

    def __copy__(self):
        # A shallow copy would share the workers and the state, and closing
        # one would close both.
        raise TypeError("a Loader cannot be copied: make another with the "
                        "same keywords (its state_dict() carries the position)")

    def __deepcopy__(self, memo):
        self.__copy__()  # the same answer (a deep copy would also fork the workers)

    def __reduce_ex__(self, protocol):
        raise TypeError("a Loader cannot be pickled: pickle its keywords and "
                        "its state_dict(), and make another from them")

    def describe(self):
        return self._loader.describe()

    def state_dict(self):
        """Where the loader stands, as a small dict of ints and strings that
        goes into a training checkpoint as it is (JSON-able): the epoch of
        the newest iterator (made by iter() after any load_state_dict())
        and how many of its batches the ranks have handed out (where it
        started, plus this rank's count times world_size: every rank gives
        the same state after the same number of steps), plus digests of the
        dataset's index and the transforms, the seed, the split, the batch
        size and the other settings that change the order or the pixels,
        and a check over all of it (against damage, not forgery). A
        finished epoch stands at the start of the next (the last, 2**32 - 1,
        at 2**32, where iter() refuses); a Loader not yet iterated at its
        `epoch`. Counts batches handed to you, not those
        prefetched."""
        return _json.loads(self._loader.state_dict())

    def load_state_dict(self, state_dict):
        """Makes the next iter(loader) resume where `state` (from
        state_dict(), of this Loader or one with the same data, seed,
        batch_size and transforms) stands; later iterators go on with the
        epochs after it. The batches from there are byte for byte those of
        the run that was never stopped, for any thread count; on another
        world_size the ranks share what is left of the epoch (each batch
        once, every rank as many, as a run with that world size pads or
        drops the last round of what is left; global batch b keeps its
        bytes) and later epochs are those of a run that had it from the
        start. ValueError names what differs (dataset, seed, transforms,
        ...) or says the state was edited or damaged. Iterators made
        before the call no longer move state_dict()."""
        if not isinstance(state_dict, _Mapping):
            raise TypeError(f"load_state_dict: state_dict must be the dict "
                            f"state_dict() returns, not "
                            f"{type(state_dict).__name__}")
        plain = {}
        for key, value in dict(state_dict).items():
            # NumPy's ints (a state that went through an array) as ints;
            # bools, NumPy's too, and anything else that is not an int or a
            # string are refused, naming the key.
            if (not isinstance(value, (bool, int, str, _np.bool_))
                    and hasattr(value, "__index__")):
                try:
                    value = _operator.index(value)
                except TypeError:  # an array of several: refused below
                    pass
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                raise TypeError(f"load_state_dict: {key!r} = {value!r} is a "
                                f"{type(value).__name__}; the state holds the "
                                f"plain ints and strings state_dict() "
                                f"returns")
            plain[key] = value
        self._loader.load_state_dict(_json.dumps(plain))

    @property
    def skipped(self):
        """(epoch, sample index, reason) of the samples skipped so far: the
        first 10,000 over the Loader's epochs."""
        return self._loader.skipped

    def close(self):
        """Stops every epoch's workers (also on exit and when the loader is
        freed); iterating afterwards raises ValueError."""
        self._loader.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_LISTS = ("train_transforms", "val_transforms", "batch_transforms")


def _lists_as_text(kwargs):
    """kwargs with the transform lists (fusednorm's or torchvision's objects,
    a list or a Compose) written as the list grammar's text."""
    out = dict(kwargs)
    for key in _LISTS:
        if out.get(key) is not None and not isinstance(out[key], str):
            try:
                out[key] = transforms.to_text(out[key])
            except (TypeError, ValueError) as e:  # "train_transforms position 1 ..."
                sep = " " if str(e).startswith("position ") else ": "
                raise transforms._reraised(e, f"{key}{sep}{e}") from None
    return out


def _distributed(kwargs):
    """kwargs with rank and world_size, each one the caller left out (or gave
    as None) taken from torch.distributed (when it is initialized) or
    torchrun's environment (RANK, WORLD_SIZE): world_size with it, and rank
    when the world_size given is that one (rank 0 of world_size 1); another
    world_size without a rank is refused, naming where the rank would have
    come from (or that nothing says it: every process would read rank 0's
    share)."""
    missing = [k for k in ("rank", "world_size") if kwargs.get(k) is None]
    given = kwargs.get("world_size")
    if not missing or (missing == ["rank"] and not _is_world_size(given)):
        return kwargs  # the keywords' own checks name what is wrong
    found = _process_rank()
    if found is None:
        if missing == ["rank"] and given > 1:
            raise ValueError(
                f"world_size = {given} without a rank, and neither "
                f"torch.distributed nor RANK says this process's: give rank")
        return kwargs
    rank, world, source = found
    if missing == ["rank"]:
        if given == 1:
            return dict(kwargs, rank=0)
        if given != world:
            raise ValueError(
                f"world_size = {given!r} without a rank, where {source} "
                f"says world size {world}: give rank too")
    filled = dict(kwargs, **{k: v for k, v in
                             (("rank", rank), ("world_size", world))
                             if k in missing})
    _check_process_rank(filled, missing, source)
    return filled


def _is_world_size(value):
    """An int (not a bool) that world_size's own check takes: 1..2**31 - 1."""
    return (isinstance(value, _numbers.Integral) and not isinstance(value, bool)
            and 1 <= value < 2**31)


def _check_process_rank(kwargs, filled, source):
    """Refuses a rank or world size taken from `source` that does not fit
    (a rank given with a world size taken, or both taken), naming where each
    came from; the ones given alone are checked with the other keywords."""
    rank, world = kwargs["rank"], kwargs["world_size"]
    if not all(isinstance(v, _numbers.Integral) and not isinstance(v, bool)
               for v in (rank, world)):
        return  # the keyword's own check names the type
    if 0 <= rank < world:
        return
    where = {k: (f" ({source.replace('WORLD_SIZE', k.upper())})"
                 if k in filled else "") for k in ("rank", "world_size")}
    if world < 1:
        raise ValueError(f"world_size = {world}{where['world_size']} must be "
                         f"at least 1")
    raise ValueError(f"rank = {rank}{where['rank']} must be in 0..world_size "
                     f"- 1, with world_size = {world}{where['world_size']}")


def _process_rank():
    """(rank, world_size, where they came from) from torch.distributed when
    it is initialized, else from torchrun's RANK and WORLD_SIZE, else
    None."""
    dist = _sys.modules.get("torch.distributed")
    if dist is not None and dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size(), "torch.distributed"
    if "RANK" not in _os.environ or "WORLD_SIZE" not in _os.environ:
        return None
    values = []
    for name in ("RANK", "WORLD_SIZE"):
        try:
            values.append(int(_os.environ[name]))
        except ValueError:
            raise ValueError(f"environment variable {name} = "
                             f"{_os.environ[name]!r} is not an integer") from None
    return values[0], values[1], "the environment's WORLD_SIZE"


def _torch_cuda():
    """torch.cuda when the process has imported torch and initialized its
    CUDA, else None (fusednorm never imports torch itself)."""
    torch = _sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_initialized():
        return None
    return cuda


class _CopyGuard:
    """With pinned="cuda", keeps each batch after the consumer has moved on,
    until what torch had queued by then on its current streams has run.

    `torch.from_numpy(images).cuda(non_blocking=True)` from a registered slot
    is a DMA that reads the slot later, and torch protects only host memory
    from its own allocator: once the loop rebinds `images`, the slot would go
    back to the pool and be refilled under the copy. So each next() records
    an event on torch's current stream of the current device (and of
    `cuda_device`, when the Loader was given one), after the copies the loop
    queued from the batch before, and holds that batch until the events
    complete; completed ones are let go at each next(), and the epoch's end
    (or the iterator's) waits for the rest. Without torch's CUDA
    initialized no copy can be queued and nothing is held. In a child made
    by fork() the parent's events are dropped unused: CUDA cannot be used
    there."""

    def __init__(self, cuda_device=None):
        self._cuda_device = cuda_device
        self._held = []  # ([events], batch)
        self._last = None  # the batch handed out last
        self._pid = _os.getpid()

    def _events(self, cuda):
        """Events just recorded on the current streams copies may be on."""
        devices = [cuda.current_device()]
        if self._cuda_device is not None and self._cuda_device not in devices:
            devices.append(self._cuda_device)
        events = []
        for device in devices:
            event = cuda.Event(blocking=True)  # waits sleep, not spin
            event.record(cuda.current_stream(device))
            events.append(event)
        return events

    def _forked(self):
        if self._pid == _os.getpid():
            return False
        self._held, self._last = [], None  # the parent's; never touched
        return True

    def next_asked(self):
        """Before the next batch is taken: holds the last one until its
        copies have run, lets go those whose copies have."""
        if self._forked():
            return
        last, self._last = self._last, None
        cuda = _torch_cuda()
        if last is not None and cuda is not None:
            self._held.append((self._events(cuda), last))
        self._held = [h for h in self._held
                      if not all(e.query() for e in h[0])]

    def handed(self, batch):
        self._last = batch

    def finish(self):
        """Waits for every held batch's copies, letting each go after."""
        self.next_asked()
        while self._held:
            for event in self._held[0][0]:
                event.synchronize()
            del self._held[0]


class _Epoch:
    """One epoch's iterator (iter(loader))."""

    def __init__(self, epoch, bfloat16, guard=None):
        self._epoch = epoch
        self._bfloat16 = bfloat16
        self._guard = guard

    def __iter__(self):
        return self

    def __copy__(self):
        # A copy would share the iterator: each batch would go to one of the
        # two.
        raise TypeError("an epoch's iterator cannot be copied: the copy "
                        "would take batches from the same epoch")

    def __deepcopy__(self, memo):
        self.__copy__()

    def __reduce_ex__(self, protocol):
        raise TypeError("an epoch's iterator cannot be pickled: pickle its "
                        "Loader's keywords and state_dict(), and make another "
                        "Loader from them")

    def __next__(self):
        # Python may raise a signal handler's exception (Ctrl-C's, or a
        # SIGTERM handler's SystemExit) between any two steps here, after
        # the batch was taken: it is then given back, so that state_dict()
        # does not count a batch the caller never saw. (An exception with no
        # batch taken, StopIteration included, gives nothing back.) The batch
        # the call before returned reached the caller: forgotten first, out
        # of the try, so that an exception before the next one is taken
        # does not give it back.
        self._epoch._caller_has_last()
        try:
            if self._guard is None:
                return self._next()
            self._guard.next_asked()
            try:
                batch = self._next()
            except StopIteration:
                self._guard.finish()
                raise
            self._guard.handed(batch)
            return batch
        except BaseException:
            self._epoch._give_back()
            raise

    def _next(self):
        images, labels = next(self._epoch)
        if self._bfloat16:
            images = _bfloat16(images)
        return images, labels

    def __del__(self):
        guard = getattr(self, "_guard", None)
        if guard is not None:
            try:
                guard.finish()
            except Exception:  # noqa: BLE001 -- torch torn down at exit
                pass

    @property
    def epoch(self):
        return self._epoch.epoch

    @property
    def skipped(self):
        """(sample index, reason) of this epoch's skipped samples so far."""
        return self._epoch.skipped

    @property
    def decoded_pixels(self):
        """(pixels decoded, pixels of the whole images) of this epoch's JPEG
        and PNG samples so far: the first is smaller where only the crops'
        windows were decoded (the training recipe's JPEGs)."""
        return self._epoch.decoded_pixels


@_atexit.register
def _close_all():
    # Iterators running in daemon threads end rather than raise.
    for loader in list(_live_loaders):
        loader._loader.close(exiting=True)
