"""torchvision 0.14's tail for explicit decisions: the reference the Python
tests compare fusednorm with, bit for bit."""

import numpy as np
import torch
import torchvision.transforms.functional as F

PRESETS = {
    "none": ([0.0, 0.0], [1.0, 1.0]),  # any channel count: here 2
    "mnist": ([0.1307], [0.3081]),
    "cifar": ([0.4914, 0.4822, 0.4465], [0.2470, 0.2435, 0.2616]),
    "imagenet": ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    "mlperf": ([123.68 / 255, 116.78 / 255, 103.94 / 255], [1 / 255] * 3),
}


def torchvision_tail(hwc, mean, std, flip, erase, dtype, layout):
    """torchvision's steps for explicit decisions, then the output's dtype
    and layout."""
    t = F.to_tensor(hwc)  # float32 CHW, x / 255
    if flip:
        t = F.hflip(t)
    t = F.normalize(t, mean, std)
    if erase is not None:
        t = F.erase(t, *erase, v=torch.tensor([0.0])[:, None, None])
    t = {"float32": t.float(), "float16": t.half(), "bfloat16": t.bfloat16()}[dtype]
    if layout == "chw":
        return t
    t = t.permute(1, 2, 0)
    if layout == "hwc4":
        t = torch.nn.functional.pad(t, (0, 4 - t.shape[2]))
    return t.contiguous()


def bits(x):
    if isinstance(x, torch.Tensor):
        x = x.view(torch.int16 if x.element_size() == 2 else torch.int32).numpy()
    return np.ascontiguousarray(x).view(np.uint16 if x.itemsize == 2 else np.uint32)
