#!/usr/bin/python3
"""Writes the small ONNX graphs the ONNX import tests read (tests/core/nn/test_onnx_model.cpp).

Run with Debian's python3-onnx (1.12): /usr/bin/python3 tests/data/onnx/make_onnx.py
Weights are zeros: the tests check shapes, parameter counts and FLOPs, never values, and
zeros keep the files small in git. The expected counts are worked out by hand in the tests.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 13  # what torch.onnx.export writes by default in 2023-2024 releases (<= 17, the library's newest)


def weight(name, *dims):
    return numpy_helper.from_array(np.zeros(dims, dtype=np.float32), name)


def save(graph, name, opset=OPSET):
    model = helper.make_model(graph, producer_name="accellab-tests", opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, os.path.join(HERE, name))


def image(name, c, h, w):
    # The batch dimension symbolic, as torch.onnx.export writes it with dynamic_axes.
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", c, h, w])


def vector(name, n):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", n])


def lenet():
    """The zoo's lenet5 on 1x28x28: conv 6@5x5 pad 2, pool, conv 16@5x5, pool, dense 120-84-10."""
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "c1.w", "c1.b"], ["c1"], kernel_shape=[5, 5], pads=[2, 2, 2, 2], name="conv1"),
        n("Relu", ["c1"], ["r1"], name="relu1"),
        n("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2], name="pool1"),
        n("Conv", ["p1", "c2.w", "c2.b"], ["c2"], kernel_shape=[5, 5], name="conv2"),
        n("Relu", ["c2"], ["r2"], name="relu2"),
        n("MaxPool", ["r2"], ["p2"], kernel_shape=[2, 2], strides=[2, 2], name="pool2"),
        n("Flatten", ["p2"], ["f"], axis=1, name="flatten"),
        n("Gemm", ["f", "fc1.w", "fc1.b"], ["g1"], transB=1, name="fc1"),
        n("Relu", ["g1"], ["r3"], name="relu3"),
        n("Gemm", ["r3", "fc2.w", "fc2.b"], ["g2"], transB=1, name="fc2"),
        n("Relu", ["g2"], ["r4"], name="relu4"),
        n("Gemm", ["r4", "fc3.w", "fc3.b"], ["logits"], transB=1, name="fc3"),
    ]
    inits = [weight("c1.w", 6, 1, 5, 5), weight("c1.b", 6), weight("c2.w", 16, 6, 5, 5), weight("c2.b", 16),
             weight("fc1.w", 120, 400), weight("fc1.b", 120), weight("fc2.w", 84, 120), weight("fc2.b", 84),
             weight("fc3.w", 10, 84), weight("fc3.b", 10)]
    return helper.make_graph(nodes, "lenet", [image("x", 1, 28, 28)], [vector("logits", 10)], inits)


def basic_block():
    """A ResNet basic block on 16x32x32 (resnet20's first stage): conv-BN-ReLU-conv-BN, add, ReLU."""
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "c1.w"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="block/conv1"),
        n("BatchNormalization", ["c1", "bn1.g", "bn1.b", "bn1.mean", "bn1.var"], ["b1"], name="block/bn1"),
        n("Relu", ["b1"], ["r1"], name="block/relu1"),
        n("Conv", ["r1", "c2.w"], ["c2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="block/conv2"),
        n("BatchNormalization", ["c2", "bn2.g", "bn2.b", "bn2.mean", "bn2.var"], ["b2"], name="block/bn2"),
        n("Add", ["b2", "x"], ["sum"], name="block/add"),
        n("Relu", ["sum"], ["y"], name="block/relu2"),
    ]
    inits = [weight("c1.w", 16, 16, 3, 3), weight("c2.w", 16, 16, 3, 3)]
    for bn in ("bn1", "bn2"):
        inits += [weight(bn + ".g", 16), weight(bn + ".b", 16), weight(bn + ".mean", 16), weight(bn + ".var", 16)]
    return helper.make_graph(nodes, "basic-block", [image("x", 16, 32, 32)], [image("y", 16, 32, 32)], inits)


def grouped():
    """Grouped and depthwise convolutions, a Gemm and a MatMul + Add, on 8x8x8."""
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "g.w", "g.b"], ["g"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=2, name="grouped"),
        n("Conv", ["g", "dw.w", "dw.b"], ["dw"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=16, name="depthwise"),
        n("GlobalAveragePool", ["dw"], ["gap"], name="gap"),
        n("Flatten", ["gap"], ["f"], name="flatten"),
        n("Gemm", ["f", "fc.w", "fc.b"], ["h"], transB=1, name="fc"),
        n("MatMul", ["h", "out.w"], ["m"], name="out"),
        n("Add", ["m", "out.b"], ["logits"], name="out_bias"),
        n("Softmax", ["logits"], ["probs"], axis=1, name="softmax"),
    ]
    inits = [weight("g.w", 16, 4, 3, 3), weight("g.b", 16), weight("dw.w", 16, 1, 3, 3), weight("dw.b", 16),
             weight("fc.w", 8, 16), weight("fc.b", 8), weight("out.w", 8, 4), weight("out.b", 4)]
    return helper.make_graph(nodes, "grouped", [image("x", 8, 8, 8)], [vector("probs", 4)], inits)


def stem():
    """An ImageNet-sized input (3x224x224): conv 8@4x4 stride 4, ReLU, global average pool, dense 10."""
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "c.w", "c.b"], ["c"], kernel_shape=[4, 4], strides=[4, 4], name="stem"),
        n("Relu", ["c"], ["r"], name="relu"),
        n("GlobalAveragePool", ["r"], ["gap"], name="gap"),
        n("Flatten", ["gap"], ["f"], name="flatten"),
        n("Gemm", ["f", "fc.w", "fc.b"], ["logits"], transB=1, name="fc"),
    ]
    inits = [weight("c.w", 8, 3, 4, 4), weight("c.b", 8), weight("fc.w", 10, 8), weight("fc.b", 10)]
    return helper.make_graph(nodes, "stem", [image("x", 3, 224, 224)], [vector("logits", 10)], inits)


def clip6():
    """ReLU6 as torch exports it: Clip with scalar float bounds as initializers (not parameters)."""
    n = helper.make_node
    nodes = [n("Gemm", ["x", "w", "b"], ["h"], transB=1, name="fc"), n("Clip", ["h", "lo", "hi"], ["y"], name="relu6")]
    lo = numpy_helper.from_array(np.array(0, dtype=np.float32), "lo")
    hi = numpy_helper.from_array(np.array(6, dtype=np.float32), "hi")
    return helper.make_graph(nodes, "clip6", [vector("x", 4)], [vector("y", 3)], [weight("w", 3, 4), weight("b", 3), lo, hi])


def tiny(op="Relu", opset=OPSET, name="tiny"):
    """One Gemm and one elementwise op: the refusals' base and the fuzz seed."""
    n = helper.make_node
    nodes = [n("Gemm", ["x", "w", "b"], ["h"], transB=1, name="fc"), n(op, ["h"], ["y"], name="act")]
    return helper.make_graph(nodes, name, [vector("x", 4)], [vector("y", 3)], [weight("w", 3, 4), weight("b", 3)])


def cycle():
    n = helper.make_node
    nodes = [n("Add", ["x", "b"], ["a"], name="first"), n("Relu", ["a"], ["b"], name="second")]
    return helper.make_graph(nodes, "cycle", [vector("x", 4)], [vector("b", 4)])


def missing_input():
    n = helper.make_node
    nodes = [n("Add", ["x", "nowhere"], ["y"], name="add")]
    return helper.make_graph(nodes, "missing", [vector("x", 4)], [vector("y", 4)])


def huge_initializer():
    g = tiny(name="huge")
    w = g.initializer[0]
    del w.dims[:]
    w.dims.extend([1 << 20, 1 << 20])  # declares 2^40 floats (4 TiB) and holds 48 bytes
    return g


def external_data():
    g = tiny(name="external")
    w = g.initializer[0]
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    w.external_data.add(key="location", value="weights.bin")
    return g


if __name__ == "__main__":
    save(lenet(), "lenet.onnx")
    save(basic_block(), "basic_block.onnx")
    save(grouped(), "grouped.onnx")
    save(stem(), "stem.onnx")
    save(tiny(), "tiny.onnx")
    save(clip6(), "clip6.onnx")
    save(tiny(op="Erf", name="erf"), "simulate_only.onnx")
    save(tiny(name="new"), "opset_too_new.onnx", opset=18)
    save(cycle(), "cycle.onnx")
    save(missing_input(), "missing_input.onnx")
    save(huge_initializer(), "huge_initializer.onnx")
    save(external_data(), "external_data.onnx")
