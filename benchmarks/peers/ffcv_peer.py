"""FFCV on a .beton written from the JPEG folder, with its own decoder and
Numba-compiled pipeline: RandomResizedCropRGBImageDecoder(224) ->
RandomHorizontalFlip -> NormalizeImage(float32) -> ToTensor ->
ToTorchImage (a channels-last tensor viewed as N,3,224,224), `--threads`
FFCV workers (Numba threads), batches of 64, random order.

Peer "ffcv": RGBImageField(write_mode="jpg", jpeg_quality=90) -- FFCV
re-encodes every decoded image with OpenCV at quality 90, the quality the
folder was written at. Peer "ffcv-raw": write_mode="raw" (decoded pixels,
full size). FFCV has no RandomErasing: both are timed without that step.
Run by peers_benchmark.py."""

import importlib.metadata
import os

import numba
import numpy as np
import torch
import torchvision.datasets as D
from ffcv.fields import IntField, RGBImageField
from ffcv.fields.decoders import IntDecoder, RandomResizedCropRGBImageDecoder
from ffcv.loader import Loader, OrderOption
from ffcv.transforms import NormalizeImage, RandomHorizontalFlip, ToTensor, ToTorchImage
from ffcv.writer import DatasetWriter

import peer_common as pc


class Decoded(D.ImageFolder):
    """The folder's images as uint8 HWC arrays (PIL's convert("RGB"))."""

    def __getitem__(self, index):
        image, label = super().__getitem__(index)
        return np.asarray(image), label


def beton(folder, work, mode):
    path = os.path.join(work, f"{os.path.basename(folder)}-{mode}.beton")
    if not os.path.exists(path):
        writer = DatasetWriter(path + ".tmp", {
            "image": RGBImageField(write_mode=mode, jpeg_quality=90),
            "label": IntField()}, num_workers=2)
        writer.from_indexed_dataset(Decoded(folder))
        os.rename(path + ".tmp", path)
    return path


def main():
    args = pc.arguments()
    os.makedirs(args.work, exist_ok=True)
    path = beton(args.data, args.work, "raw" if args.peer == "ffcv-raw" else "jpg")
    image = [RandomResizedCropRGBImageDecoder((pc.SIZE, pc.SIZE)),
             RandomHorizontalFlip(),
             NormalizeImage(pc.MEAN * 255, pc.STD * 255, np.float32),
             ToTensor(), ToTorchImage()]
    loader = Loader(path, batch_size=pc.BATCH, num_workers=args.threads,
                    order=OrderOption.RANDOM, drop_last=False, os_cache=True,
                    pipelines={"image": image, "label": [IntDecoder(), ToTensor()]})
    images, _ = next(iter(loader))
    check = pc.check_batch(images.permute(0, 2, 3, 1).numpy(), "hwc", erasing=False)

    def epoch():
        return sum(images.shape[0] for images, _ in loader)

    rate, n = pc.timed_epochs(epoch, args.epochs)
    pc.report(rate, n, check + " (channels-last tensor)",
              {"ffcv": importlib.metadata.version("ffcv"), "numba": numba.__version__,
               "torch": torch.__version__})


if __name__ == "__main__":
    main()
