"""torchvision's loaders on the JPEG folder, each at its best settings:

  v1  ImageFolder with PIL (Pillow or Pillow-SIMD, whichever `import PIL`
      finds) -> RandomResizedCrop(224) -> RandomHorizontalFlip -> ToTensor
      -> Normalize -> RandomErasing
  v2  torchvision.io.decode_jpeg on the file's bytes (uint8 CHW tensors) ->
      v2.RandomResizedCrop(224, antialias=True) -> v2.RandomHorizontalFlip
      -> v2.ToDtype(float32, scale=True) -> v2.Normalize -> v2.RandomErasing

With `--recipe colorjitter`, ColorJitter(0.4, 0.4, 0.4, 0.1) after the flip
(v1: on the PIL image; v2: on the uint8 tensor). With `--recipe
trivialaugment`, `randaugment` or `autoaugment`, torchvision's ResNet-50 V2
recipe: RandomResizedCrop(176), flip, the policy (TrivialAugmentWide,
RandAugment(2, 9) or AutoAugment(imagenet)), RandomErasing(0.1), all with
bilinear interpolation, as its reference train.py makes them.

DataLoader with `--threads` worker processes (one torch thread each),
batches of 64, float32 CHW. Run by peers_benchmark.py."""

import importlib.metadata
import os

import PIL
import torch
import torchvision
import torchvision.datasets as D
import torchvision.transforms as T
import torchvision.transforms.v2 as v2
from PIL import features
from torchvision.io import ImageReadMode, decode_jpeg, read_file

import peer_common as pc


def decode_file(path):
    return decode_jpeg(read_file(path), mode=ImageReadMode.RGB)


def policy(module, recipe):
    """The recipe's policy from `module` (v1's transforms or v2), or None."""
    mode = T.InterpolationMode.BILINEAR
    if recipe == "trivialaugment":
        return module.TrivialAugmentWide(interpolation=mode)
    if recipe == "randaugment":
        return module.RandAugment(2, 9, interpolation=mode)
    if recipe == "autoaugment":
        return module.AutoAugment(T.AutoAugmentPolicy.IMAGENET,
                                  interpolation=mode)
    return None


def middle(module, recipe):
    """The recipe's steps between the flip and the tensor."""
    if recipe == "colorjitter":
        return [module.ColorJitter(*pc.JITTER)]
    p = policy(module, recipe)
    return [p] if p is not None else []


def dataset(peer, folder, recipe):
    mean, std = pc.MEAN.tolist(), pc.STD.tolist()
    size = pc.recipe_size(recipe)
    erasing = pc.POLICY_ERASING if recipe in pc.POLICIES else 0.5
    if peer == "v1":
        tf = T.Compose([T.RandomResizedCrop(size), T.RandomHorizontalFlip()] +
                       middle(T, recipe) +
                       [T.ToTensor(), T.Normalize(mean, std),
                        T.RandomErasing(erasing)])
        return D.ImageFolder(folder, tf)
    tf = v2.Compose([v2.RandomResizedCrop(size, antialias=True),
                     v2.RandomHorizontalFlip()] + middle(v2, recipe) +
                    [v2.ToDtype(torch.float32, scale=True),
                     v2.Normalize(mean, std), v2.RandomErasing(erasing)])
    return D.ImageFolder(folder, tf, loader=decode_file)


def one_thread(_):
    torch.set_num_threads(1)


def main():
    args = pc.arguments(pc.RECIPES)
    torch.set_num_threads(1)
    loader = torch.utils.data.DataLoader(
        dataset(args.peer, args.data, args.recipe), batch_size=pc.BATCH, shuffle=True,
        num_workers=args.threads, persistent_workers=True,
        worker_init_fn=one_thread)
    images, _ = next(iter(loader))
    check = pc.check_batch(images.numpy(), "chw", erasing=True,
                           size=pc.recipe_size(args.recipe))

    def epoch():
        return sum(images.shape[0] for images, _ in loader)

    rate, n = pc.timed_epochs(epoch, args.epochs)
    pc.report(rate, n, check, {"torch": torch.__version__,
                               "torchvision": torchvision.__version__,
                               **pillow()})


def pillow():
    """The distribution `import PIL` found (Pillow or Pillow-SIMD, both on
    the path in the simd environment) and the libjpeg-turbo it uses."""
    site = os.path.dirname(os.path.dirname(PIL.__file__))
    name = next(d.metadata["Name"] for d in importlib.metadata.distributions(path=[site])
                if d.metadata["Name"].lower() in ("pillow", "pillow-simd"))
    return {name: PIL.__version__,
            f"libjpeg-turbo ({name})": features.version("libjpeg_turbo")}


if __name__ == "__main__":
    main()
