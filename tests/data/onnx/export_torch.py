#!/usr/bin/python3
"""Writes the PyTorch exports the ONNX import tests read (torch_lenet, torch_resnet, torch_resnet_eval,
torch_vit, torch_branches, torch_branches_eval, torch_ln_mlp: an MLP with a LayerNorm, with
torch_ln_mlp.expected.txt as torch_branches has).

Run with Debian's python3-torch (1.13): /usr/bin/python3 tests/data/onnx/export_torch.py
torch_lenet writes x.view(x.size(0), -1) (Shape -> Gather -> Unsqueeze -> Concat -> Reshape,
which ONNX 1.12's shape inference cannot follow alone); torch_resnet is a CIFAR ResNet (3
stages of basic blocks, 1x1 projection shortcuts) exported in training mode, so batch norm
stays a node of its own; torch_resnet_eval is the same exported as torch.onnx.export does by
default (eval mode), which folds every batch norm into the convolution before it. Weights are
zeros (the tests check counts, not values; zeros keep the files small in git), except
torch_branches: a small network on 28x28 images with every kind of block the engine builds from
ONNX (residual blocks with identity and projection shortcuts, a depthwise separable convolution, an
Inception-style Concat of three branches, dropout), its weights and batch-norm statistics seeded
and non-zero, exported in training mode (batch norms as nodes) and in eval mode (folded), with
torch_branches.expected.txt: the eval-mode class probabilities of two fixed inputs
(x[i] = sin(0.1 * (i + 1)) over the flattened batch), which the engine must reproduce from the
file's weights. Prints the
parameter count (model.parameters()) and the multiply-adds of the convolutions and linears.
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


class Lenet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 6, 5, padding=2)
        self.c2 = nn.Conv2d(6, 16, 5)
        self.f1, self.f2, self.f3 = nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = x.view(x.size(0), -1)
        return self.f3(F.relu(self.f2(F.relu(self.f1(x)))))


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
        self.c2, self.b2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
        self.sc = nn.Sequential()
        if stride != 1 or cin != cout:
            self.sc = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return F.relu(self.b2(self.c2(F.relu(self.b1(self.c1(x))))) + self.sc(x))


class Resnet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.blocks = nn.Sequential(Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2))
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.blocks(self.stem(x)), 1)
        return F.softmax(self.fc(torch.flatten(x, 1)), dim=1)


class TinyVit(nn.Module):
    """A ViT on 32x32: 8x8 patches (16 tokens and a class token), one pre-LN encoder layer
    (d 64, 4 heads, FFN 128, GELU), a LayerNorm and a linear head. torch shares equal initial
    tensors (zero biases, unit LayerNorm scales) through Identity nodes; expand(n, -1, -1) is
    Shape -> ConstantOfShape -> Equal -> Where -> Expand."""

    def __init__(self, d=64, heads=4, tokens=16):
        super().__init__()
        self.emb = nn.Conv2d(3, d, 8, 8)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.zeros(1, tokens + 1, d))
        self.enc = nn.TransformerEncoderLayer(d, heads, 128, 0.0, activation="gelu", batch_first=True, norm_first=True)
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, 10)

    def forward(self, x):
        x = self.emb(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        return self.head(self.ln(self.enc(x)[:, 0]))


class Branches(nn.Module):
    def __init__(self):
        super().__init__()
        bn = nn.BatchNorm2d
        self.stem = nn.Sequential(nn.Conv2d(1, 8, 3, 1, 1, bias=False), bn(8), nn.ReLU())
        self.block1 = Block(8, 8, 1)    # identity shortcut
        self.block2 = Block(8, 16, 2)   # projection shortcut, 14x14
        self.dw = nn.Sequential(nn.Conv2d(16, 16, 3, 1, 1, groups=16, bias=False), bn(16), nn.ReLU(),
                                nn.Conv2d(16, 16, 1), nn.ReLU())
        self.b1 = nn.Conv2d(16, 8, 1)
        self.b2 = nn.Sequential(nn.Conv2d(16, 8, 1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))
        self.b3 = nn.Sequential(nn.MaxPool2d(3, 1, 1), nn.Conv2d(16, 8, 1))
        self.head = nn.Sequential(nn.Dropout(0.25), nn.Linear(24, 10))

    def forward(self, x):
        x = self.dw(self.block2(self.block1(self.stem(x))))
        x = F.relu(torch.cat([self.b1(x), self.b2(x), self.b3(x)], 1))
        x = F.adaptive_avg_pool2d(x, 1)
        return F.softmax(self.head(torch.flatten(x, 1)), dim=1)


def fixed_input(n, shape):
    count = n
    for d in shape:
        count *= d
    return torch.sin(0.1 * (torch.arange(count, dtype=torch.float64) + 1)).float().reshape(n, *shape)


def export_branches():
    torch.manual_seed(7)
    model = Branches()
    with torch.no_grad():  # batch-norm statistics that are not the identity
        for m in model.modules():
            if isinstance(m, nn.Linear):
                m.weight.mul_(8)  # class scores far apart, so the probabilities tell the weights apart
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 2.0)
    model.eval()
    x = fixed_input(2, (1, 28, 28))
    # Tracing in training mode runs one training forward pass, which moves the running
    # statistics, and the file holds the moved ones: export that first, then take the
    # probabilities and the eval-mode export from the same, moved, state.
    export = dict(opset_version=13, input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    torch.onnx.export(model, x[:1], os.path.join(HERE, "torch_branches.onnx"), training=torch.onnx.TrainingMode.TRAINING,
                      **export)
    model.eval()
    with torch.no_grad():
        probs = model(x)
    torch.onnx.export(model, x[:1], os.path.join(HERE, "torch_branches_eval.onnx"), training=torch.onnx.TrainingMode.EVAL,
                      **export)
    print("torch_branches params", sum(p.numel() for p in model.parameters()), "macs", macs(model, (1, 1, 28, 28)))
    with open(os.path.join(HERE, "torch_branches.expected.txt"), "w") as f:
        f.write("# torch_branches.onnx in eval mode on x[i] = sin(0.1 * (i + 1)), batch 2 x 1 x 28 x 28 (export_torch.py)\n")
        for row in probs:
            f.write(" ".join("%.9g" % v for v in row.tolist()) + "\n")


class LayerNormMlp(nn.Module):
    """Flatten, Linear 784 -> 32, LayerNorm, ReLU, Linear 32 -> 10: LayerNormalization at opset 17."""

    def __init__(self):
        super().__init__()
        self.f1, self.ln, self.f2 = nn.Linear(784, 32), nn.LayerNorm(32), nn.Linear(32, 10)

    def forward(self, x):
        return F.softmax(self.f2(F.relu(self.ln(self.f1(torch.flatten(x, 1))))), dim=1)


def export_layer_norm_mlp():
    torch.manual_seed(11)
    model = LayerNormMlp()
    with torch.no_grad():
        model.ln.weight.uniform_(0.5, 1.5)
        model.ln.bias.uniform_(-0.5, 0.5)
        model.f2.weight.mul_(4)
    model.eval()
    x = fixed_input(2, (1, 28, 28))
    with torch.no_grad():
        probs = model(x)
    torch.onnx.export(model, x[:1], os.path.join(HERE, "torch_ln_mlp.onnx"), opset_version=17, input_names=["x"],
                      output_names=["y"], dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    with open(os.path.join(HERE, "torch_ln_mlp.expected.txt"), "w") as f:
        f.write("# torch_ln_mlp.onnx in eval mode on x[i] = sin(0.1 * (i + 1)), batch 2 x 1 x 28 x 28 (export_torch.py)\n")
        for row in probs:
            f.write(" ".join("%.9g" % v for v in row.tolist()) + "\n")


def macs(model, shape):
    total = 0

    def hook(m, inp, out):
        nonlocal total
        if isinstance(m, nn.Conv2d):
            total += out.numel() * m.in_channels // m.groups * m.kernel_size[0] * m.kernel_size[1]
        elif isinstance(m, nn.Linear):
            total += out.numel() * m.in_features

    handles = [m.register_forward_hook(hook) for m in model.modules()]
    model(torch.zeros(*shape))
    for h in handles:
        h.remove()
    return total


if __name__ == "__main__":
    export_branches()
    export_layer_norm_mlp()
    for name, model, shape, mode in [("torch_lenet", Lenet(), (1, 1, 28, 28), torch.onnx.TrainingMode.EVAL),
                                     ("torch_resnet", Resnet(), (1, 3, 32, 32), torch.onnx.TrainingMode.TRAINING),
                                     ("torch_resnet_eval", Resnet(), (1, 3, 32, 32), torch.onnx.TrainingMode.EVAL),
                                     ("torch_vit", TinyVit(), (1, 3, 32, 32), torch.onnx.TrainingMode.EVAL)]:
        with torch.no_grad():
            for p in model.parameters():
                p.zero_()
        model.eval()
        print(name, "params", sum(p.numel() for p in model.parameters()), "macs", macs(model, shape))
        # opset 17 for the ViT: LayerNormalization is an op of its own from 17 on
        torch.onnx.export(model, torch.zeros(*shape), os.path.join(HERE, name + ".onnx"),
                          opset_version=17 if name == "torch_vit" else 13,
                          training=mode, input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
