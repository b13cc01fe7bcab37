"""torchvision's transforms as fusednorm runs them: the same names,
arguments and defaults, and torchvision v1's pixels on a PIL image given
the same decisions.

    import fusednorm, fusednorm.transforms as T
    train = [T.RandomResizedCrop(176), T.RandomHorizontalFlip(),
             T.ColorJitter(0.4, 0.4, 0.4), T.RandomErasing(0.1)]
    loader = fusednorm.Loader(data="/data/train", train_transforms=train)

Every op can also be used on its own. decide() draws its decisions from
the start of the stream of sample `index` of `epoch` under `seed` (the
loader's for that sample when the op is the first of its list that draws:
later ops draw after it; with repeated augmentations, repeat j of sample i
of n draws from index j * n + i), and returns them with torchvision's
get_params names; apply() applies given decisions (or draws
them) to a uint8 (H, W, C) or (H, W) array:

    op = T.ColorJitter(0.4, 0.4, 0.4, 0.1)
    d = op.decide(224, 224, seed=0, epoch=0, index=5)
    # {'order': (2, 0, 3, 1), 'brightness': 1.12..., ...}
    out = op.apply(image, d)

Lists of these objects, torchvision's own transforms (v1 or v2, in a list
or a Compose), or the text `fusednorm run` takes all make the same lists:
to_text() writes any of them as that text. A torchvision transform, or an
argument of one, that fusednorm cannot run is a TypeError naming it, never
dropped; fusednorm's own classes and the text refuse a value they do not
take (lanczos, antialias=False) with a ValueError naming it.

The list ops RandomApply, RandomChoice and RandomOrder hold transforms of
their own; their decisions nest those transforms' dicts ("transforms", None
for one that does not run).

The batch transforms (MixUp, CutMix, RandomChoice of them: a RandomChoice
whose list starts with a batch transform is one) run on whole batches:
decide(height, width, seed=, epoch=, batch=) and apply(images, labels,
decisions, num_classes=...) -> (images, soft targets).
"""

from collections.abc import Mapping as _Mapping
from numbers import Number as _Number
from numbers import Real as _Real
import functools as _functools
import math as _math
import operator as _operator
import threading as _threading

from fusednorm import _fusednorm

__all__ = ["Compose", "to_text", "from_torchvision", "op_names"]


def _reraised(e, message):
    """A ValueError or TypeError `e` again, with `message`: a TypeError stays
    one, any other is a ValueError; the traceback is still where `e` was
    raised."""
    kind = TypeError if isinstance(e, TypeError) else ValueError
    return kind(message).with_traceback(e.__traceback__)


def _naming_op(method):
    """`method` (decide or apply) with each ValueError and TypeError naming
    the op first, whatever checked the value: an image's size, a decision's
    field, an output too large."""
    @_functools.wraps(method)
    def named(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except (ValueError, TypeError) as e:
            op = self._op.name
            if str(e).startswith(op):
                raise
            raise _reraised(e, f"{op}: {e}") from None
    return named


class Transform:
    """A per-sample transform (the base of the classes below)."""

    _name = None

    def __init__(self, *args, resize_filter="pil", **kwargs):
        if self._name in _LIST_OPS:  # torchvision's objects as ours
            args, kwargs = _ours_in_choice(args, kwargs,
                                           flatten=self._name == "RandomApply")
        if self._name in _FILL_AT:  # fill as torchvision's means it
            at = _FILL_AT[self._name]
            _check_fill(self._name, kwargs["fill"] if "fill" in kwargs else
                        args[at] if at < len(args) else None)
        self._op = _fusednorm.Transform(self._name, args, kwargs, resize_filter)

    @property
    def _fusednorm_spec(self):
        return self._op.spec

    def __repr__(self):
        return self._op.spec

    def __getattr__(self, name):
        # The arguments, as attributes (torchvision's transforms have them);
        # a list op's transforms as objects.
        if name.startswith("_"):
            raise AttributeError(name)
        for key, value in self._op.args:
            if key == name and name == "transforms" and self._name in _LIST_OPS:
                return tuple(_rebuild(v, self._op.resize_filter) for v in value)
            if key == name:
                return value
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    @_naming_op
    def decide(self, height, width, *, seed=0, epoch=0, index=0):
        """The decisions for an image of height x width drawn from the
        start of sample `index`'s stream of `epoch` under `seed`: what the
        loader gives that sample when this op is the first of its list
        that draws. In a list, each op draws after those before it from
        the same stream, so a later op's decisions there differ."""
        return self._op.decide(*_sizes(height, width),
                               **_stream(seed, epoch, index=index))

    @_naming_op
    def apply(self, image, decisions=None, *, seed=0, epoch=0, index=0):
        """The op on a uint8 (H, W, C) or (H, W) array with `decisions`
        (decide()'s dict), or the ones decide(seed=, epoch=, index=) draws.
        RandomErasing works on the normalized tensor: a float32 (C, H, W)
        array. Returns a new array; RandomErasing(inplace=True) erases
        `image` itself and returns it, as torchvision's does."""
        out = self._op.apply(_image(image), _decisions(decisions),
                             **_stream(seed, epoch, index=index))
        if self._name == "RandomErasing" and self.inplace:
            return _written_into(image, out)
        return out

    __call__ = apply

    def __reduce__(self):
        return (_rebuild, (self._op.spec, self._op.resize_filter))


class BatchTransform:
    """A batch transform (the base of MixUp, CutMix and RandomChoice)."""

    _name = None

    def __init__(self, *args, **kwargs):
        if self._name == "RandomChoice":  # torchvision's objects as ours
            args, kwargs = _ours_in_choice(args, kwargs)
        self._op = _fusednorm.BatchTransform(self._name, args, kwargs)

    @property
    def _fusednorm_spec(self):
        return self._op.spec

    def __repr__(self):
        return self._op.spec

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        for key, value in self._op.args:
            if key == name and name == "transforms":  # RandomChoice's
                return tuple(_rebuild_batch(v) for v in value)
            if key == name:
                return value
        if name == "num_classes":  # RandomChoice's: its transforms'
            return self._op.num_classes
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    @_naming_op
    def decide(self, height, width, *, seed=0, epoch=0, batch=0):
        """The decisions for batch `batch` of `epoch` under `seed` of images
        of height x width (torchvision v2's _get_params names). `batch` is
        the loader's global batch number; with repeated augmentations a
        rank's batch j is number j * world_size + rank."""
        return self._op.decide(*_sizes(height, width),
                               **_stream(seed, epoch, batch=batch))

    @_naming_op
    def apply(self, images, labels, decisions, *, num_classes=None,
              label_smoothing=0.0, layout="chw"):
        """(mixed images, soft targets) of a float32 or float16 batch,
        (N, C, H, W) for layout "chw" or (N, H, W, C) for "hwc", and its
        int labels (-1: a skipped sample, mixed with nothing: its target row
        is all zeros, and the sample after it keeps its own image and target).
        `num_classes` defaults to the op's own (MixUp(alpha, num_classes))."""
        import numpy as np
        num_classes = self._classes(num_classes)
        if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, _Real):
            raise TypeError(f"label_smoothing must be a number, not "
                            f"{_type_name(label_smoothing)}")
        return self._op.apply(np.asarray(images), _int64_labels(labels, num_classes),
                              _decisions(decisions, required=True),
                              num_classes=num_classes,
                              label_smoothing=float(label_smoothing), layout=layout)

    def _classes(self, num_classes):
        """`num_classes` checked against the op's own (RandomChoice's: its
        transforms'), which it defaults to."""
        own = self._op.num_classes
        if num_classes is None:
            if own is None:
                where = ("its transforms (MixUp(..., num_classes=N))"
                         if self._op.name == "RandomChoice"
                         else f"{self._op.name}(..., num_classes=N)")
                raise TypeError(f"{self._op.name}.apply() needs num_classes, here "
                                f"or given to {where}")
            return own
        if isinstance(num_classes, bool) or not hasattr(num_classes, "__index__"):
            raise TypeError(f"num_classes = {num_classes!r}: must be an int")
        if own is not None and num_classes != own:
            raise ValueError(f"num_classes = {num_classes} but this op is "
                             f"{self._op.spec}")
        return num_classes

    def __reduce__(self):
        return (_rebuild_batch, (self._op.spec,))


def _type_name(value):
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else \
        f"{kind.__module__}.{kind.__qualname__}"


def _is_bool(value):
    """A bool, NumPy's included, or a bool array or tensor."""
    return (isinstance(value, bool)
            or str(getattr(value, "dtype", "")) in ("bool", "torch.bool"))


def _shown_int(value):
    """`value` as a message shows it: a number past 40 digits by its count
    of digits (str() of one past 4,300 digits is itself an error)."""
    if abs(value) < 10**40:
        return str(value)
    digits = int(_math.log10(abs(value))) + 1
    return f"{'-' if value < 0 else ''}(an integer of {digits} digits)"


def _int(name, value, high, low=0):
    """`value` as an int in low..high for argument `name`: a TypeError for
    a bool, a float or anything without __index__, a ValueError out of
    range."""
    if _is_bool(value) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{name} must be an int, not {_type_name(value)}")
    value = _operator.index(value)
    if not low <= value <= high:
        raise ValueError(f"{name} = {_shown_int(value)}: must be in {low}..{high}")
    return value


# An image side's limit (the ops' 2^20), a sample's stream index's (2^63;
# above, the streams of batches) and a batch number's (2^62).
_MAX_SIDE = 2**20
_LIMITS = {"index": 2**63 - 1, "batch": 2**62 - 1}


def _sizes(height, width):
    return (_int("height", height, _MAX_SIDE, 1),
            _int("width", width, _MAX_SIDE, 1))


def _position(epoch, **index):
    """The epoch and index (or batch) keywords of a stream, checked."""
    (name, value), = index.items()
    return {"epoch": _int("epoch", epoch, 2**32 - 1),
            name: _int(name, value, _LIMITS[name])}


def _stream(seed, epoch, **index):
    """seed, epoch and the index (or batch) keywords of decide(), checked."""
    return dict(seed=_int("seed", seed, 2**64 - 1), **_position(epoch, **index))


def _image(image):
    """`image` if it exposes its pixels as a buffer (a NumPy array does; a
    torch tensor, a list or a PIL image does not)."""
    try:
        memoryview(image).release()
    except TypeError:
        raise TypeError(f"image must be a NumPy array, uint8 (H, W, C) or "
                        f"(H, W) (RandomErasing: float32 (C, H, W)), not "
                        f"{_type_name(image)}") from None
    return image


def _written_into(image, out):
    """`image` (an array or a writable buffer) with `out`'s values: what an
    op that torchvision runs in place returns."""
    import numpy as np
    target = np.asarray(image)
    if not target.flags.writeable:
        raise ValueError("RandomErasing: inplace=True erases the image "
                         "itself, and this one is read-only")
    np.copyto(target, out)
    return image


def _decisions(decisions, required=False):
    """decide()'s dict (any mapping), or None where the op may draw."""
    if decisions is None and not required:
        return None
    if not isinstance(decisions, _Mapping):
        raise TypeError(f"decisions must be a dict (decide()'s), not "
                        f"{_type_name(decisions)}")
    return dict(decisions)


def _int64_labels(labels, num_classes):
    """`labels` as int64, refusing what the conversion would change: bools,
    non-integers, and unsigned values past int64 (which would wrap, to -1
    for 2**64 - 1: a skipped sample's label)."""
    import numpy as np
    labels = np.asarray(labels)
    if labels.size == 0 and labels.dtype.kind == "f":  # [] or np.array([])
        labels = labels.astype(np.int64)
    if labels.dtype.kind not in "iu":
        raise TypeError(f"labels must be integers, not {labels.dtype}")
    if labels.dtype.kind == "u" and labels.size and labels.max() > np.iinfo(np.int64).max:
        raise ValueError(f"label {labels.max()} is not in 0..{num_classes - 1} (or -1)")
    return labels.astype(np.int64)


def _ours_in_choice(args, kwargs, flatten=False):
    """A list op's arguments (RandomApply, RandomChoice, RandomOrder) with
    torchvision's transforms in its list made fusednorm's (from_torchvision),
    so that they are named as transforms. A Compose in the list is its
    transforms in turn: with `flatten` (RandomApply, which runs its list in
    turn) they join the list, else (one choice, one place in an order) they
    are RandomApply(its transforms, p=1.0)."""
    def one(t):
        if type(t).__name__ != "Compose" or isinstance(t, (list, tuple)):
            return from_torchvision(t) if _is_torchvision(t) else t
        return _classes["RandomApply"](_items(t), p=1.0)

    def ours(transforms):
        if not isinstance(transforms, (list, tuple)):
            return transforms
        if flatten:
            transforms = _items(list(transforms))
        return [one(t) for t in transforms]
    if args:
        args = (ours(args[0]),) + tuple(args[1:])
    if "transforms" in kwargs:
        kwargs = dict(kwargs, transforms=ours(kwargs["transforms"]))
    return args, kwargs


def _rebuild(spec, resize_filter):
    t = Transform.__new__(_kinds["sample"][spec.split("(", 1)[0]])
    t._op = _fusednorm.Transform.from_spec(spec, resize_filter)
    return t


def _rebuild_batch(spec):
    t = BatchTransform.__new__(_kinds["batch"][spec.split("(", 1)[0]])
    t._op = _fusednorm.BatchTransform.from_spec(spec)
    return t


def _docstring(row):
    params = ", ".join(p if d is None else f"{p}={d}" for p, d, _ in row["params"])
    lines = [f"{row['name']}({params}): {row['help']}."]
    for p, _, h in row["params"]:
        lines.append(f"    {p}: {h}")
    return "\n".join(lines)


# The per-sample ops made of a list of transforms.
_LIST_OPS = ("RandomApply", "RandomChoice", "RandomOrder")
# torchvision's batch transforms, by class name.
_BATCH_NAMES = {"MixUp", "CutMix", "Mixup", "Cutmix"}


def _is_batch(t):
    """Whether `t`, an item of a RandomChoice's list, is a batch transform
    (ours, or torchvision's MixUp, CutMix or RandomChoice of them)."""
    if isinstance(t, (Transform, BatchTransform)):
        return isinstance(t, BatchTransform)
    name = type(t).__name__
    if _is_torchvision(t) and name == "RandomChoice":
        items = list(getattr(t, "transforms", []))
        return bool(items) and _is_batch(items[0])
    return _is_torchvision(t) and name in _BATCH_NAMES


class _EitherKind(type):
    """RandomChoice's class: isinstance() holds for both of its kinds."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, tuple(cls._kinds))


class _RandomChoice(metaclass=_EitherKind):
    def __new__(cls, *args, **kwargs):
        transforms = args[0] if args else kwargs.get("transforms")
        batch = (isinstance(transforms, (list, tuple)) and bool(transforms)
                 and _is_batch(transforms[0]))
        return _kinds["batch" if batch else "sample"]["RandomChoice"](
            *args, **kwargs)


_classes = {}
_kinds = {"sample": {}, "batch": {}}
# The position of each op's fill among its arguments.
_FILL_AT = {r["name"]: [p for p, _, _ in r["params"]].index("fill")
            for r in _fusednorm.op_rows()
            if "fill" in [p for p, _, _ in r["params"]]}
for _row in _fusednorm.op_rows():
    _base = Transform if _row["kind"] == "sample" else BatchTransform
    _kinds[_row["kind"]][_row["name"]] = type(_row["name"], (_base,), {
        "_name": _row["name"], "__doc__": _docstring(_row),
        "__module__": __name__})
    if _row["name"] not in _classes:
        __all__.append(_row["name"])
    _classes[_row["name"]] = _kinds[_row["kind"]][_row["name"]]
del _row, _base
# RandomChoice is both: its list's first transform picks the kind.
_classes["RandomChoice"] = _EitherKind("RandomChoice", (_RandomChoice,), {
    "__doc__": _kinds["sample"]["RandomChoice"].__doc__ + "\n\n" +
    _kinds["batch"]["RandomChoice"].__doc__,
    "__module__": __name__,
    "_kinds": (_kinds["sample"]["RandomChoice"], _kinds["batch"]["RandomChoice"])})
globals().update(_classes)


def op_names(kind="sample"):
    """The names of the per-sample ("sample") or batch ("batch") transforms."""
    return [r["name"] for r in _fusednorm.op_rows() if r["kind"] == kind]


class Compose:
    """A list of transforms, as torchvision's Compose holds one (the Loader
    takes it, or the plain list)."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __repr__(self):
        inner = "".join(f"\n    {t!r}," for t in self.transforms)
        return f"Compose([{inner}\n])"


# ---- torchvision's transforms ----

def _sequence(v):
    return tuple(v) if isinstance(v, (list, tuple)) else v


def _dtype(t):
    dtype = t.dtype
    if isinstance(dtype, dict):  # v2's per-type dtypes: the images'
        dtype = _for_images(type(t).__name__, "dtype", dtype)
    return dtype


def _check_fill(name, fill, torchvisions=False):
    """TypeError unless `fill` means to torchvision v1 what it means to
    fusednorm: v1 spreads only an int or a float over the channels; another
    single number (a NumPy scalar, a 0-d tensor) reaches Pillow as int(fill),
    one packed colour. An array or tensor of several values fails there:
    refused in torchvision's objects (`torchvisions`), taken by fusednorm's
    own classes as one value per channel."""
    if fill is None or isinstance(fill, (int, float, list, tuple, str)):
        return
    if isinstance(fill, _Number) or getattr(fill, "size", None) == 1 or (
            callable(getattr(fill, "numel", None)) and fill.numel() == 1):
        raise TypeError(
            f"{name}: fill={fill!r} ({type(fill).__name__}) is one packed "
            f"colour to torchvision, whose arguments these are: (value, 0, 0) "
            f"on RGB images, not a value for every channel; give an int, a "
            f"float or a tuple")
    if torchvisions:
        raise TypeError(
            f"{name}: fill={fill!r} ({type(fill).__name__}) is not a fill "
            f"torchvision's transforms of PIL images take: give an int, a "
            f"float or a tuple")


def _fill(t):
    fill = t.fill
    if isinstance(fill, dict):  # v2's per-type fills: the images'
        fill = _for_images(type(t).__name__, "fill", fill)
    if ".v2." not in type(t).__module__:
        _check_fill(type(t).__name__, fill, torchvisions=True)
    return _sequence(fill)


def _policy(t):
    """AutoAugment's policy: torchvision runs the list `policies` its
    constructor made from `policy` (v2: `_policies`), whatever was set
    since, so the list is what names it; a list of one's own is refused."""
    policies = getattr(t, "policies", getattr(t, "_policies", None))
    for policy in type(t.policy):
        if t._get_policies(policy) == policies:
            return policy
    raise TypeError(
        f"{type(t).__name__}: its policies are not the list of any "
        f"AutoAugmentPolicy (a list of one's own, or one changed after "
        f"construction): fusednorm runs the named policies only "
        f"({', '.join(p.name for p in type(t.policy))})")


def _crop_size(t):
    """RandomResizedCrop's size: its constructor makes it (h, w); an int or
    one value set since makes torchvision resize the crop's shorter side,
    an output of the crop's shape, which fusednorm does not make."""
    size = _sequence(t.size)
    if not isinstance(size, tuple) or len(size) != 2:
        raise TypeError(
            f"{type(t).__name__}: size={t.size!r} makes torchvision resize "
            f"each crop's shorter side to it (its constructor makes size "
            f"(h, w)); fusednorm's crops are h x w: construct it with the "
            f"size")
    return size


def _for_images(name, key, values):
    """An image's value in a v2 per-type dict (`key`'s), as v2 picks it: the
    entry of the image's type (tv_tensors.Image, PIL.Image.Image or
    torch.Tensor: which one an image is depends on the pipeline, so they
    must agree), else "others", else None."""
    found = {_sequence(v) for k, v in values.items()
             if getattr(k, "__name__", "") in ("Image", "Tensor")}
    if len(found) > 1:
        raise TypeError(
            f"{name}: {key}={values!r} gives images {len(found)} different "
            "values (by tv_tensors.Image, PIL.Image.Image and torch.Tensor): "
            "give one")
    if found:
        return next(iter(found))
    return values.get("others")


def _random_crop(t):
    """RandomCrop's arguments. v2 keeps its padding as [left, right, top,
    bottom] and pads once, where v1 pads `padding` and then pad_if_needed's
    difference: the same pixels except for reflect and symmetric with both,
    which fusednorm (v1's) refuses for a v2 object."""
    padding = _sequence(t.padding)
    if ".v2" in type(t).__module__:
        if padding is not None:
            left, right, top, bottom = padding
            padding = (left, top, right, bottom)
        if (padding is not None and any(padding) and t.pad_if_needed
                and t.padding_mode in ("reflect", "symmetric")):
            raise TypeError(
                "torchvision.transforms.v2.RandomCrop with padding, "
                f"pad_if_needed=True and padding_mode={t.padding_mode!r} pads "
                "once where v1's RandomCrop, which fusednorm runs, pads twice "
                "(other pixels): use torchvision.transforms.RandomCrop")
    return dict(size=_sequence(t.size), padding=padding,
                pad_if_needed=t.pad_if_needed, fill=_fill(t),
                padding_mode=t.padding_mode)


# torchvision class -> its arguments, read from the object's attributes.
_TORCHVISION = {
    "RandomResizedCrop": lambda t: dict(
        size=_crop_size(t), scale=_sequence(t.scale),
        ratio=_sequence(t.ratio), interpolation=t.interpolation,
        antialias=getattr(t, "antialias", None)),
    "Resize": lambda t: dict(
        size=_sequence(t.size), interpolation=t.interpolation,
        max_size=t.max_size, antialias=getattr(t, "antialias", None)),
    "CenterCrop": lambda t: dict(size=_sequence(t.size)),
    "RandomCrop": _random_crop,
    "RandomHorizontalFlip": lambda t: dict(p=t.p),
    "RandomVerticalFlip": lambda t: dict(p=t.p),
    "ColorJitter": lambda t: dict(
        brightness=_sequence(t.brightness), contrast=_sequence(t.contrast),
        saturation=_sequence(t.saturation), hue=_sequence(t.hue)),
    "Grayscale": lambda t: dict(num_output_channels=t.num_output_channels),
    "RandomGrayscale": lambda t: dict(p=t.p),
    "RandomErasing": lambda t: dict(
        p=t.p, scale=_sequence(t.scale), ratio=_sequence(t.ratio),
        value=_sequence(t.value), inplace=t.inplace),
    "Normalize": lambda t: dict(mean=_sequence(t.mean), std=_sequence(t.std),
                                inplace=t.inplace),
    "ToTensor": lambda t: {},
    "PILToTensor": lambda t: {},
    "ToImage": lambda t: {},
    "ToImageTensor": lambda t: {},
    "ToPureTensor": lambda t: {},
    "ToDtype": lambda t: dict(dtype=_dtype(t), scale=getattr(t, "scale", False)),
    "ConvertImageDtype": lambda t: dict(dtype=t.dtype),
    "AutoAugment": lambda t: dict(
        policy=_policy(t), interpolation=t.interpolation, fill=_fill(t)),
    "RandAugment": lambda t: dict(
        num_ops=t.num_ops, magnitude=t.magnitude,
        num_magnitude_bins=t.num_magnitude_bins,
        interpolation=t.interpolation, fill=_fill(t)),
    "TrivialAugmentWide": lambda t: dict(
        num_magnitude_bins=t.num_magnitude_bins,
        interpolation=t.interpolation, fill=_fill(t)),
    "RandomRotation": lambda t: dict(
        degrees=_sequence(t.degrees), interpolation=t.interpolation,
        expand=t.expand, center=_sequence(t.center), fill=_fill(t)),
    "RandomAffine": lambda t: dict(
        degrees=_sequence(t.degrees), translate=_sequence(t.translate),
        scale=_sequence(t.scale), shear=_sequence(t.shear),
        interpolation=t.interpolation, fill=_fill(t),
        center=_sequence(t.center)),
    "RandomPosterize": lambda t: dict(bits=t.bits, p=t.p),
    "RandomSolarize": lambda t: dict(threshold=t.threshold, p=t.p),
    "RandomAdjustSharpness": lambda t: dict(
        sharpness_factor=t.sharpness_factor, p=t.p),
    "RandomAutocontrast": lambda t: dict(p=t.p),
    "RandomEqualize": lambda t: dict(p=t.p),
    "RandomInvert": lambda t: dict(p=t.p),
    "MixUp": lambda t: dict(alpha=t.alpha, num_classes=t.num_classes),
    "CutMix": lambda t: dict(alpha=t.alpha, num_classes=t.num_classes),
    "RandomChoice": lambda t: dict(
        transforms=list(t.transforms), p=None if t.p is None else tuple(t.p)),
    # transforms: v1's sequence or nn.ModuleList, v2's nn.ModuleList; the
    # classes take torchvision's objects in them (_ours_in_choice).
    "RandomApply": lambda t: dict(transforms=list(t.transforms), p=t.p),
    "RandomOrder": lambda t: dict(transforms=list(t.transforms)),
}
_TORCHVISION["Mixup"] = _TORCHVISION["MixUp"]  # torchvision 0.15's names
_TORCHVISION["Cutmix"] = _TORCHVISION["CutMix"]


def _is_torchvision(obj):
    return type(obj).__module__.split(".")[0] == "torchvision"


_converting = _threading.local()  # ids of the objects being converted


def from_torchvision(t):
    """fusednorm's transform for torchvision's `t` (v1 or v2), with every
    argument it was made with; TypeError naming what fusednorm cannot
    run."""
    if isinstance(t, (Transform, BatchTransform)):
        return t
    busy = _converting.__dict__.setdefault("ids", set())
    if id(t) in busy:
        raise ValueError(f"{type(t).__name__} holds itself among its transforms")
    if len(busy) >= 32:  # past what list ops may hold, before Python's limit
        raise ValueError(f"{type(t).__name__}: torchvision's transforms hold "
                         f"transforms 33 or more deep; fusednorm's list ops "
                         f"hold list ops at most 8 deep")
    busy.add(id(t))
    try:
        return _from_torchvision(t)
    finally:
        busy.discard(id(t))


def _from_torchvision(t):
    name = type(t).__name__
    if _is_torchvision(t) and name == "AugMix":
        raise TypeError("torchvision's AugMix is not a transform fusednorm "
                        "runs: it mixes its chains in float through torch's "
                        "tensor kernels, even on PIL images (use "
                        "AutoAugment, RandAugment or TrivialAugmentWide)")
    if not _is_torchvision(t) or name not in _TORCHVISION:
        known = ", ".join(sorted(set(_TORCHVISION) - {"Mixup", "Cutmix"}))
        raise TypeError(f"{type(t).__module__}.{name} is not a transform "
                        f"fusednorm runs; it runs: {known}")
    ours = {"Mixup": "MixUp", "Cutmix": "CutMix"}.get(name, name)
    try:
        return _classes[ours](**_TORCHVISION[name](t))
    except (ValueError, TypeError, AttributeError) as e:
        # torchvision took these values: one fusednorm refuses is one it
        # does not support (lanczos, antialias=False, ...), a TypeError. An
        # attribute changed after torchvision checked it (a policy that is
        # no AutoAugmentPolicy, transforms=None) fails in the reading: the
        # message names the transform whatever it says.
        message = str(e)
        if not message.startswith((name, ours, "torchvision's ")):
            message = f"torchvision's {name}: {message}"
        raise TypeError(message).with_traceback(e.__traceback__) from None


def _items(transforms, _inside=()):
    if isinstance(transforms, (Transform, BatchTransform)) or (
            _is_torchvision(transforms) and type(transforms).__name__ != "Compose"):
        return [transforms]
    if id(transforms) in _inside:
        raise ValueError(f"a {type(transforms).__name__} holds itself among its "
                         f"transforms")
    if len(_inside) >= 32:  # before Python's recursion limit
        raise ValueError(f"{type(transforms).__name__}s hold one another 33 or "
                         f"more deep")
    _inside += (id(transforms),)
    if hasattr(transforms, "transforms") and not isinstance(transforms, (list, tuple)):
        transforms = transforms.transforms  # ours or torchvision's Compose
    if isinstance(transforms, (list, tuple)):
        out = []  # a Compose inside runs its transforms in turn: flattened
        for t in transforms:
            out.extend(_items(t, _inside) if type(t).__name__ == "Compose" else [t])
        return out
    raise TypeError(f"a transform list must be a str, a list or a Compose, "
                    f"not {type(transforms).__name__}")


def to_text(transforms):
    """The list grammar's text of `transforms`: a str (returned as it is),
    or a list, tuple or Compose (fusednorm's or torchvision's) of
    fusednorm's or torchvision's transforms."""
    if isinstance(transforms, str):
        return transforms
    specs = []
    for k, t in enumerate(_items(transforms)):
        try:
            specs.append(from_torchvision(t)._fusednorm_spec)
        except (TypeError, ValueError) as e:  # named by its place, as text is
            raise _reraised(e, f"position {k} ({type(t).__name__}): {e}") from None
    return ", ".join(specs)
