#!/usr/bin/python3
"""Replicas of torchvision's ImageNet classifiers in plain torch.nn, exported to ONNX the way
torch.onnx.export does by default (eval mode, so batch norms fold into the convolutions), for
checking the ONNX importer against real-world graphs without torchvision installed.

Written from the published architectures (He et al. 2015 with the stride on the 3x3 of the
bottleneck, "v1.5"; Sandler et al. 2018; Iandola et al. 2016 v1.1; Szegedy et al. 2014 as
torchvision builds it, 3x3 in the "5x5" branch and batch norm after every convolution; Huang
et al. 2016; Tan & Le 2019; Ma et al. 2018; Tan et al. 2018) so that each has exactly
torchvision's parameter count at num_classes=1000 (PARAMS below; the script fails if not).

Usage: /usr/bin/python3 torchvision_like.py [--fresh] OUT_DIR [MODEL ...]   (Debian's python3-torch 1.13)
Weights are random (seeded). Batch norms get seeded non-trivial scales, shifts and running
statistics, as trained weights have, unless --fresh: then they keep torch's initial values
(scale 1, shift 0, mean 0, variance 1), so every batch norm the export folds leaves an all-zero
convolution bias, and torch.onnx.export shares equal tensors: such a bias becomes an Identity of
another all-zero tensor of its length (a batch norm's shift that was not folded, in DenseNet).
Writes OUT_DIR/MODEL.onnx per model (resnet50 is ~100 MB: keep OUT_DIR out of the repository)
and OUT_DIR/torchvision_like.json; prints one line per model:
  MODEL params P macs M export_s S
with P = sum of model.parameters(), M = multiply-adds of every Conv2d and Linear at batch 1 on
3x224x224 (forward hooks: out.numel() * in_channels / groups * kh * kw, out.numel() * in_features).
Exit status 2 on a bad model name, 3 when a replica's parameter count is not torchvision's.
"""
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import export_torch  # beside this script

# torchvision's model.parameters() totals at num_classes=1000 (googlenet: aux_logits=False)
PARAMS = {
    "resnet18": 11689512,
    "resnet50": 25557032,
    "mobilenet_v2": 3504872,
    "squeezenet1_1": 1235496,
    "googlenet": 6624904,
    "densenet121": 7978856,
    "efficientnet_b0": 5288548,
    "shufflenet_v2_x1_0": 2278604,
    "mnasnet1_0": 4383312,
}


def conv_bn(cin, cout, k, stride=1, groups=1, act=nn.ReLU, eps=1e-5):
    """Conv (no bias, 'same' padding for odd k) -> BatchNorm -> activation (None: none)."""
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout, eps=eps)]
    if act is not None:
        layers.append(act(inplace=True) if act in (nn.ReLU, nn.ReLU6, nn.SiLU) else act())
    return nn.Sequential(*layers)


# ---------------------------------------------------------------- ResNet

class Basic(nn.Module):
    expansion = 1

    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * self.expansion
        self.conv1 = nn.Conv2d(cin, width, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        skip = x if self.down is None else self.down(x)
        y = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(y)) + skip)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * self.expansion
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)  # stride on the 3x3 (v1.5)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        skip = x if self.down is None else self.down(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        return self.relu(self.bn3(self.conv3(y)) + skip)


class ResNet(nn.Module):
    def __init__(self, block, depths, num_classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        stages, cin = [], 64
        for i, n in enumerate(depths):
            width = 64 << i
            blocks = []
            for j in range(n):
                blocks.append(block(cin, width, 2 if (i > 0 and j == 0) else 1))
                cin = width * block.expansion
            stages.append(nn.Sequential(*blocks))
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


# ---------------------------------------------------------------- MobileNetV2

class InvertedResidualV2(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        mid = cin * expand
        self.residual = stride == 1 and cin == cout
        layers = []
        if expand != 1:
            layers.append(conv_bn(cin, mid, 1, act=nn.ReLU6))
        layers += [conv_bn(mid, mid, 3, stride, groups=mid, act=nn.ReLU6),
                   nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.residual else self.conv(x)


class MobileNetV2(nn.Module):
    SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]

    def __init__(self, num_classes=1000):
        super().__init__()
        layers, cin = [conv_bn(3, 32, 3, 2, act=nn.ReLU6)], 32
        for t, c, n, s in self.SETTINGS:
            for i in range(n):
                layers.append(InvertedResidualV2(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(conv_bn(cin, 1280, 1, act=nn.ReLU6))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, num_classes))

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(torch.flatten(x, 1))


# ---------------------------------------------------------------- SqueezeNet 1.1

class Fire(nn.Module):
    def __init__(self, cin, squeeze, e1, e3):
        super().__init__()
        self.squeeze = nn.Conv2d(cin, squeeze, 1)
        self.expand1x1 = nn.Conv2d(squeeze, e1, 1)
        self.expand3x3 = nn.Conv2d(squeeze, e3, 3, padding=1)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.relu(self.squeeze(x))
        return torch.cat([self.relu(self.expand1x1(x)), self.relu(self.expand3x3(x))], 1)


class SqueezeNet11(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        pool = lambda: nn.MaxPool2d(3, 2, ceil_mode=True)  # noqa: E731
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, 2), nn.ReLU(inplace=True), pool(),
            Fire(64, 16, 64, 64), Fire(128, 16, 64, 64), pool(),
            Fire(128, 32, 128, 128), Fire(256, 32, 128, 128), pool(),
            Fire(256, 48, 192, 192), Fire(384, 48, 192, 192), Fire(384, 64, 256, 256), Fire(512, 64, 256, 256))
        self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(512, num_classes, 1), nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))

    def forward(self, x):
        return torch.flatten(self.classifier(self.features(x)), 1)


# ---------------------------------------------------------------- GoogLeNet (Inception v1)

def basic_conv(cin, cout, k, stride=1):
    return conv_bn(cin, cout, k, stride, eps=0.001)


class Inception(nn.Module):
    def __init__(self, cin, c1, c3r, c3, c5r, c5, pool_proj):
        super().__init__()
        self.branch1 = basic_conv(cin, c1, 1)
        self.branch2 = nn.Sequential(basic_conv(cin, c3r, 1), basic_conv(c3r, c3, 3))
        self.branch3 = nn.Sequential(basic_conv(cin, c5r, 1), basic_conv(c5r, c5, 3))  # 3x3, as torchvision has it
        self.branch4 = nn.Sequential(nn.MaxPool2d(3, 1, 1, ceil_mode=True), basic_conv(cin, pool_proj, 1))

    def forward(self, x):
        return torch.cat([self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)], 1)


class GoogLeNet(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        pool = lambda k=3: nn.MaxPool2d(k, 2, ceil_mode=True)  # noqa: E731
        self.stem = nn.Sequential(basic_conv(3, 64, 7, 2), pool(), basic_conv(64, 64, 1), basic_conv(64, 192, 3), pool())
        self.body = nn.Sequential(
            Inception(192, 64, 96, 128, 16, 32, 32), Inception(256, 128, 128, 192, 32, 96, 64), pool(),
            Inception(480, 192, 96, 208, 16, 48, 64), Inception(512, 160, 112, 224, 24, 64, 64),
            Inception(512, 128, 128, 256, 24, 64, 64), Inception(512, 112, 144, 288, 32, 64, 64),
            Inception(528, 256, 160, 320, 32, 128, 128), pool(2),
            Inception(832, 256, 160, 320, 32, 128, 128), Inception(832, 384, 192, 384, 48, 128, 128))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(1024, num_classes)

    def forward(self, x):
        x = torch.flatten(self.avgpool(self.body(self.stem(x))), 1)
        return self.fc(self.dropout(x))


# ---------------------------------------------------------------- DenseNet-121

class DenseLayer(nn.Module):
    def __init__(self, cin, growth, bn_size):
        super().__init__()
        self.norm1, self.conv1 = nn.BatchNorm2d(cin), nn.Conv2d(cin, bn_size * growth, 1, bias=False)
        self.norm2, self.conv2 = nn.BatchNorm2d(bn_size * growth), nn.Conv2d(bn_size * growth, growth, 3, 1, 1, bias=False)

    def forward(self, feats):
        x = self.conv1(F.relu(self.norm1(torch.cat(feats, 1))))
        return self.conv2(F.relu(self.norm2(x)))


class DenseBlock(nn.Module):
    def __init__(self, n, cin, growth, bn_size):
        super().__init__()
        self.layers = nn.ModuleList(DenseLayer(cin + i * growth, growth, bn_size) for i in range(n))

    def forward(self, x):
        feats = [x]
        for layer in self.layers:
            feats.append(layer(feats))
        return torch.cat(feats, 1)


class DenseNet(nn.Module):
    def __init__(self, growth=32, blocks=(6, 12, 24, 16), init=64, bn_size=4, num_classes=1000):
        super().__init__()
        layers = [nn.Conv2d(3, init, 7, 2, 3, bias=False), nn.BatchNorm2d(init), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)]
        c = init
        for i, n in enumerate(blocks):
            layers.append(DenseBlock(n, c, growth, bn_size))
            c += n * growth
            if i != len(blocks) - 1:  # transition: BN-ReLU-1x1 conv halving the channels, 2x2 average pool
                layers += [nn.BatchNorm2d(c), nn.ReLU(inplace=True), nn.Conv2d(c, c // 2, 1, bias=False), nn.AvgPool2d(2, 2)]
                c //= 2
        layers.append(nn.BatchNorm2d(c))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(c, num_classes)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(F.relu(self.features(x)), (1, 1))
        return self.classifier(torch.flatten(x, 1))


# ---------------------------------------------------------------- EfficientNet-B0

class SqueezeExcite(nn.Module):
    def __init__(self, c, squeeze):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1, self.fc2 = nn.Conv2d(c, squeeze, 1), nn.Conv2d(squeeze, c, 1)
        self.act = nn.SiLU(inplace=True)

    def forward(self, x):
        return x * torch.sigmoid(self.fc2(self.act(self.fc1(self.avgpool(x)))))


class MBConv(nn.Module):
    def __init__(self, cin, cout, k, stride, expand):
        super().__init__()
        mid = cin * expand
        self.residual = stride == 1 and cin == cout
        layers = []
        if expand != 1:
            layers.append(conv_bn(cin, mid, 1, act=nn.SiLU, eps=1e-3))
        layers += [conv_bn(mid, mid, k, stride, groups=mid, act=nn.SiLU, eps=1e-3),
                   SqueezeExcite(mid, max(1, cin // 4)),
                   conv_bn(mid, cout, 1, act=None, eps=1e-3)]
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        # stochastic depth on the residual branch is the identity in eval mode
        return x + self.block(x) if self.residual else self.block(x)


class EfficientNetB0(nn.Module):
    # expand, kernel, stride, in, out, repeats
    STAGES = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
              (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]

    def __init__(self, num_classes=1000):
        super().__init__()
        layers = [conv_bn(3, 32, 3, 2, act=nn.SiLU, eps=1e-3)]
        for e, k, s, cin, cout, n in self.STAGES:
            layers.append(nn.Sequential(*[MBConv(cin if i == 0 else cout, cout, k, s if i == 0 else 1, e) for i in range(n)]))
        layers.append(conv_bn(320, 1280, 1, act=nn.SiLU, eps=1e-3))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2, inplace=True), nn.Linear(1280, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


# ---------------------------------------------------------------- ShuffleNetV2 x1.0

def channel_shuffle(x, groups):
    n, c, h, w = x.size()  # traced sizes: Shape -> Gather in the export, as torchvision's
    x = x.view(n, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(n, -1, h, w)


class ShuffleUnit(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.stride = stride
        half = cout // 2
        if stride > 1:
            self.branch1 = nn.Sequential(nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin),
                                         conv_bn(cin, half, 1))
        self.branch2 = nn.Sequential(conv_bn(cin if stride > 1 else half, half, 1),
                                     nn.Conv2d(half, half, 3, stride, 1, groups=half, bias=False), nn.BatchNorm2d(half),
                                     conv_bn(half, half, 1))

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = torch.cat((x1, self.branch2(x2)), 1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), 1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    def __init__(self, repeats=(4, 8, 4), channels=(24, 116, 232, 464, 1024), num_classes=1000):
        super().__init__()
        self.conv1 = conv_bn(3, channels[0], 3, 2)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        stages, cin = [], channels[0]
        for n, cout in zip(repeats, channels[1:4]):
            stages.append(nn.Sequential(*[ShuffleUnit(cin if i == 0 else cout, cout, 2 if i == 0 else 1) for i in range(n)]))
            cin = cout
        self.stage2, self.stage3, self.stage4 = stages
        self.conv5 = conv_bn(cin, channels[4], 1)
        self.fc = nn.Linear(channels[4], num_classes)

    def forward(self, x):
        x = self.maxpool(self.conv1(x))
        x = self.conv5(self.stage4(self.stage3(self.stage2(x))))
        return self.fc(x.mean([2, 3]))


# ---------------------------------------------------------------- MNASNet 1.0

class MnasResidual(nn.Module):
    def __init__(self, cin, cout, k, stride, expand):
        super().__init__()
        mid = cin * expand
        self.residual = cin == cout and stride == 1
        self.layers = nn.Sequential(conv_bn(cin, mid, 1), conv_bn(mid, mid, k, stride, groups=mid),
                                    nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return self.layers(x) + x if self.residual else self.layers(x)


class MNASNet(nn.Module):
    # in, out, kernel, stride, expansion, repeats (depth multiplier 1.0)
    STACKS = [(16, 24, 3, 2, 3, 3), (24, 40, 5, 2, 3, 3), (40, 80, 5, 2, 6, 3), (80, 96, 3, 1, 6, 2),
              (96, 192, 5, 2, 6, 4), (192, 320, 3, 1, 6, 1)]

    def __init__(self, num_classes=1000):
        super().__init__()
        layers = [conv_bn(3, 32, 3, 2), conv_bn(32, 32, 3, groups=32), nn.Conv2d(32, 16, 1, bias=False), nn.BatchNorm2d(16)]
        for cin, cout, k, s, e, n in self.STACKS:
            layers.append(nn.Sequential(*[MnasResidual(cin if i == 0 else cout, cout, k, s if i == 0 else 1, e) for i in range(n)]))
        layers.append(conv_bn(320, 1280, 1))
        self.layers = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2, inplace=True), nn.Linear(1280, num_classes))

    def forward(self, x):
        return self.classifier(self.layers(x).mean([2, 3]))


BUILDERS = {
    "resnet18": lambda: ResNet(Basic, (2, 2, 2, 2)),
    "resnet50": lambda: ResNet(Bottleneck, (3, 4, 6, 3)),
    "mobilenet_v2": MobileNetV2,
    "squeezenet1_1": SqueezeNet11,
    "googlenet": GoogLeNet,
    "densenet121": DenseNet,
    "efficientnet_b0": EfficientNetB0,
    "shufflenet_v2_x1_0": ShuffleNetV2,
    "mnasnet1_0": MNASNet,
}


def params(model):
    return sum(p.numel() for p in model.parameters())


def macs(model, shape=(1, 3, 224, 224)):
    """Multiply-adds of every Conv2d and Linear at batch 1 (export_torch.py counts them)."""
    with torch.no_grad():
        return export_torch.macs(model, shape)


def trained_like(model):
    """Batch-norm scales, shifts and running statistics as trained weights have them (seeded)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 2.0)
    return model


def main(argv):
    fresh = "--fresh" in argv[1:]
    argv = [a for a in argv if a != "--fresh"]
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print("usage: torchvision_like.py [--fresh] OUT_DIR [MODEL ...]\nmodels: " + " ".join(BUILDERS), file=sys.stderr)
        return 2
    out, names = argv[1], argv[2:] or list(BUILDERS)
    bad = [n for n in names if n not in BUILDERS]
    if bad:
        print("unknown model(s): %s (known: %s)" % (" ".join(bad), " ".join(BUILDERS)), file=sys.stderr)
        return 2
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    results, status = {}, 0
    for name in names:
        model = BUILDERS[name]()
        if not fresh:
            trained_like(model)
        model.eval()
        p, m = params(model), macs(model)
        if p != PARAMS[name]:
            print("%s: replica has %d parameters, torchvision %d" % (name, p, PARAMS[name]), file=sys.stderr)
            status = 3
        path = os.path.join(out, name + ".onnx")
        start = time.monotonic()
        with torch.no_grad():
            torch.onnx.export(model, torch.zeros(1, 3, 224, 224), path, opset_version=13,
                              input_names=["x"], output_names=["y"],
                              dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
        seconds = time.monotonic() - start
        results[name] = {"params": p, "macs": m, "export_s": round(seconds, 2), "file": path, "fresh_batch_norms": fresh}
        print("%s params %d macs %d export_s %.1f" % (name, p, m, seconds), flush=True)
    with open(os.path.join(out, "torchvision_like.json"), "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
