# realworld-source: https://github.com/ultralytics/yolov3/issues/1085
# realworld-family: dtype
# realworld-error: RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.cuda.HalfTensor) should be the same
# realworld-key: Input type (float) and bias type (c10::Half) should be the same
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: torch-conv-dtype-mismatch
# realworld-why: model.half() under an argparse flag (default True), image tensor left float32; layers from a module-definition list
import argparse

import torch
import torch.nn as nn

MODULE_DEFS = [(3, 16, 3, 1), (16, 32, 3, 2), (32, 64, 3, 2), (64, 255, 1, 1)]


def create_modules(module_defs):
    module_list = nn.ModuleList()
    for c_in, c_out, k, s in module_defs:
        modules = nn.Sequential()
        modules.add_module('Conv2d', nn.Conv2d(c_in, c_out, k, s, padding=k // 2))  # expect-here
        if c_out != 255:
            modules.add_module('LeakyReLU', nn.LeakyReLU(0.1))
        module_list.append(modules)
    return module_list


class Darknet(nn.Module):
    def __init__(self):
        super(Darknet, self).__init__()
        self.module_list = create_modules(MODULE_DEFS)

    def forward(self, x):
        for module in self.module_list:
            x = module(x)  # expect-here
        return x


def detect(opt):
    model = Darknet()
    model.eval()
    half = opt.half
    if half:
        model.half()  # expect-here
    img = torch.zeros((1, 3, opt.img_size, opt.img_size))  # expect-here
    with torch.no_grad():
        pred = model(img)  # expect-here
    return pred


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument('--img-size', type=int, default=64)
    parser.add_argument('--half', default=True, help='half precision FP16 inference')
    print(detect(parser.parse_args([])).shape)
