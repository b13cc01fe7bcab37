"""NVIDIA DALI as a CPU-only pipeline (device_id=None) on the JPEG folder:
fn.readers.file (shuffled) -> fn.decoders.image(device="cpu", RGB) ->
fn.random_resized_crop(224) -> fn.crop_mirror_normalize(float32, CHW,
mirror = fn.random.coin_flip()), `--threads` DALI threads, batches of 64.

DALI has no RandomErasing. Peer "dali" times the pipeline without the step;
peer "dali-erase" adds one built from DALI's own operators: fn.erase with a
rectangle drawn per sample (probability 0.5, area 0.02..0.33 of the image,
log-uniform aspect 0.3..3.3, clamped to the image: one draw, where
torchvision redraws up to 10 times). Run by peers_benchmark.py."""

import math

import nvidia.dali as dali
import nvidia.dali.fn as fn
import nvidia.dali.math as dmath
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

import peer_common as pc


def erase(images):
    """fn.erase over a random rectangle in relative coordinates (H, W)."""
    area = fn.random.uniform(range=(0.02, 0.33))
    aspect = dmath.exp(fn.random.uniform(range=(math.log(0.3), math.log(3.3))))
    gate = fn.cast(fn.random.coin_flip(probability=0.5), dtype=types.FLOAT)
    h = dmath.min(dmath.sqrt(area * aspect), 1.0) * gate
    w = dmath.min(dmath.sqrt(area / aspect), 1.0) * gate
    top = fn.random.uniform(range=(0.0, 1.0)) * (1.0 - h)
    left = fn.random.uniform(range=(0.0, 1.0)) * (1.0 - w)
    return fn.erase(images, anchor=fn.stack(top, left), shape=fn.stack(h, w),
                    axis_names="HW", normalized_anchor=True,
                    normalized_shape=True, fill_value=0.0)


@pipeline_def(batch_size=pc.BATCH, device_id=None)
def training(folder, with_erase):
    jpegs, labels = fn.readers.file(file_root=folder, random_shuffle=True,
                                    name="files")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.random_resized_crop(images, size=(pc.SIZE, pc.SIZE))
    images = fn.crop_mirror_normalize(
        images, dtype=types.FLOAT, output_layout="CHW",
        mean=(pc.MEAN * 255).tolist(), std=(pc.STD * 255).tolist(),
        mirror=fn.random.coin_flip(probability=0.5))
    if with_erase:
        images = erase(images)
    return images, labels


def main():
    args = pc.arguments()
    pipe = training(args.data, args.peer == "dali-erase",
                    num_threads=args.threads, seed=1)
    pipe.build()
    size = pipe.epoch_size("files")
    batches = -(-size // pc.BATCH)
    images, _ = pipe.run()
    check = pc.check_batch(images.as_array(), "chw",
                           erasing=args.peer == "dali-erase")

    def epoch():
        for _ in range(batches):
            pipe.run()
        return batches * pc.BATCH

    rate, n = pc.timed_epochs(epoch, args.epochs)
    pc.report(rate, n, check, {"nvidia-dali-cuda120": dali.__version__})


if __name__ == "__main__":
    main()
