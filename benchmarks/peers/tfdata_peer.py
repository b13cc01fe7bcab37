"""tf.data (tensorflow-cpu) on the JPEG folder, the way TensorFlow's own
ImageNet input pipelines crop: the crop window is drawn from the JPEG's
header (tf.image.sample_distorted_bounding_box, area 0.08..1, aspect
3/4..4/3) and tf.io.decode_and_crop_jpeg decodes only that window; then
tf.image.resize(224, bilinear, antialias=True), random_flip_left_right,
normalize, and a RandomErasing written with TensorFlow ops (TensorFlow has
none: probability 0.5, area 0.02..0.33, log-uniform aspect 0.3..3.3, one
draw clamped to the image where torchvision redraws up to 10 times).
Shuffled files, map with `--threads` parallel calls in a private thread
pool of that size, batches of 64, float32 HWC (TensorFlow's layout).
Run by peers_benchmark.py."""

import math
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

import peer_common as pc  # noqa: E402

MEAN = pc.MEAN.astype("float32")
STD = pc.STD.astype("float32")


def files(folder):
    classes = sorted(c for c in os.listdir(folder)
                     if os.path.isdir(os.path.join(folder, c)))
    pairs = [(os.path.join(folder, c, f), i) for i, c in enumerate(classes)
             for f in sorted(os.listdir(os.path.join(folder, c)))]
    return [p for p, _ in pairs], [label for _, label in pairs]


def random_erase(image):
    area = tf.random.uniform([], 0.02, 0.33) * pc.SIZE * pc.SIZE
    aspect = tf.exp(tf.random.uniform([], math.log(0.3), math.log(3.3)))
    h = tf.minimum(tf.cast(tf.round(tf.sqrt(area * aspect)), tf.int32), pc.SIZE)
    w = tf.minimum(tf.cast(tf.round(tf.sqrt(area / aspect)), tf.int32), pc.SIZE)
    top = tf.random.uniform([], 0, pc.SIZE - h + 1, tf.int32)
    left = tf.random.uniform([], 0, pc.SIZE - w + 1, tf.int32)
    rows = tf.range(pc.SIZE)
    inside_rows = (rows >= top) & (rows < top + h)
    inside_cols = (rows >= left) & (rows < left + w)
    inside = inside_rows[:, None] & inside_cols[None, :]
    erased = tf.where(inside[:, :, None], 0.0, image)
    return tf.cond(tf.random.uniform([]) < 0.5, lambda: erased, lambda: image)


def load(path, label):
    data = tf.io.read_file(path)
    begin, size, _ = tf.image.sample_distorted_bounding_box(
        tf.io.extract_jpeg_shape(data), tf.zeros([0, 0, 4]),
        min_object_covered=0.0, area_range=(0.08, 1.0),
        aspect_ratio_range=(3 / 4, 4 / 3), max_attempts=10,
        use_image_if_no_bounding_boxes=True)
    window = tf.stack([begin[0], begin[1], size[0], size[1]])
    image = tf.io.decode_and_crop_jpeg(data, window, channels=3)
    image = tf.image.resize(image, [pc.SIZE, pc.SIZE], "bilinear", antialias=True)
    image = tf.image.random_flip_left_right(image)
    image = (image / 255.0 - MEAN) / STD
    return random_erase(image), label


def main():
    args = pc.arguments()
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    paths, labels = files(args.data)
    options = tf.data.Options()
    options.threading.private_threadpool_size = args.threads
    options.threading.max_intra_op_parallelism = 1
    data = (tf.data.Dataset.from_tensor_slices((paths, labels))
            .shuffle(len(paths), reshuffle_each_iteration=True)
            .map(load, num_parallel_calls=args.threads)
            .batch(pc.BATCH).prefetch(2).with_options(options))
    images, _ = next(iter(data))
    check = pc.check_batch(images.numpy(), "hwc", erasing=True)

    def epoch():
        return sum(int(images.shape[0]) for images, _ in data)

    rate, n = pc.timed_epochs(epoch, args.epochs)
    pc.report(rate, n, check, {"tensorflow-cpu": tf.__version__})


if __name__ == "__main__":
    main()
