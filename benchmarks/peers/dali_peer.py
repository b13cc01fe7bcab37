"""NVIDIA DALI as a CPU-only pipeline (device_id=None) on the JPEG folder:
fn.readers.file (shuffled) -> fn.decoders.image(device="cpu", RGB) ->
fn.random_resized_crop(224) -> fn.crop_mirror_normalize(float32, CHW,
mirror = fn.random.coin_flip()), `--threads` DALI threads, batches of 64.

DALI has no RandomErasing. Peer "dali" times the pipeline without the step;
peer "dali-erase" adds one built from DALI's own operators: fn.erase with a
rectangle drawn per sample (probability 0.5, area 0.02..0.33 of the image,
log-uniform aspect 0.3..3.3, clamped to the image: one draw, where
torchvision redraws up to 10 times). With `--recipe trivialaugment`,
`randaugment` or `autoaugment`: torchvision's ResNet-50 V2 recipe with
DALI's own policies (nvidia.dali.auto_aug: trivial_augment_wide,
rand_augment(n=2, m=9), auto_augment_image_net) between a flip
(fn.flip) and the normalization, with torchvision's fill (0, not DALI's
128) and bilinear interpolation, crops of 176, erasing with probability
0.1. Run by peers_benchmark.py."""

import math

import nvidia.dali as dali
import nvidia.dali.fn as fn
import nvidia.dali.math as dmath
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

import peer_common as pc


def erase(images, probability):
    """fn.erase over a random rectangle in relative coordinates (H, W)."""
    area = fn.random.uniform(range=(0.02, 0.33))
    aspect = dmath.exp(fn.random.uniform(range=(math.log(0.3), math.log(3.3))))
    gate = fn.cast(fn.random.coin_flip(probability=probability),
                   dtype=types.FLOAT)
    h = dmath.min(dmath.sqrt(area * aspect), 1.0) * gate
    w = dmath.min(dmath.sqrt(area / aspect), 1.0) * gate
    top = fn.random.uniform(range=(0.0, 1.0)) * (1.0 - h)
    left = fn.random.uniform(range=(0.0, 1.0)) * (1.0 - w)
    return fn.erase(images, anchor=fn.stack(top, left), shape=fn.stack(h, w),
                    axis_names="HW", normalized_anchor=True,
                    normalized_shape=True, fill_value=0.0)


def policy(images, recipe, size):
    """DALI's auto-augment policy of the recipe, torchvision's fill and
    interpolation."""
    from nvidia.dali.auto_aug import auto_augment, rand_augment, trivial_augment
    common = dict(fill_value=0, interp_type=types.INTERP_LINEAR)
    if recipe == "trivialaugment":
        return trivial_augment.trivial_augment_wide(images, **common)
    if recipe == "randaugment":
        return rand_augment.rand_augment(images, n=2, m=9, shape=(size, size),
                                         **common)
    return auto_augment.auto_augment_image_net(images, shape=(size, size),
                                               **common)


@pipeline_def(batch_size=pc.BATCH, device_id=None, enable_conditionals=True)
def training(folder, with_erase, recipe):
    jpegs, labels = fn.readers.file(file_root=folder, random_shuffle=True,
                                    name="files")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    size = pc.recipe_size(recipe)
    images = fn.random_resized_crop(images, size=(size, size))
    flip = fn.random.coin_flip(probability=0.5)
    if recipe in pc.POLICIES:
        images = policy(fn.flip(images, horizontal=flip), recipe, size)
        flip = 0
    images = fn.crop_mirror_normalize(
        images, dtype=types.FLOAT, output_layout="CHW",
        mean=(pc.MEAN * 255).tolist(), std=(pc.STD * 255).tolist(),
        mirror=flip)
    if with_erase:
        images = erase(images, pc.POLICY_ERASING if recipe in pc.POLICIES
                       else 0.5)
    return images, labels


def main():
    args = pc.arguments(("default",) + pc.POLICIES)
    pipe = training(args.data, args.peer == "dali-erase", args.recipe,
                    num_threads=args.threads, seed=1)
    pipe.build()
    size = pipe.epoch_size("files")
    batches = -(-size // pc.BATCH)
    images, _ = pipe.run()
    check = pc.check_batch(images.as_array(), "chw",
                           erasing=args.peer == "dali-erase",
                           size=pc.recipe_size(args.recipe))

    def epoch():
        for _ in range(batches):
            pipe.run()
        return batches * pc.BATCH

    rate, n = pc.timed_epochs(epoch, args.epochs)
    pc.report(rate, n, check, {"nvidia-dali-cuda120": dali.__version__})


if __name__ == "__main__":
    main()
