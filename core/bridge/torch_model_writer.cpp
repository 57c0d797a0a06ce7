#include "core/bridge/torch_model_writer.h"

#include <cmath>
#include <map>
#include <sstream>

#include "core/util/error.h"
#include "core/util/json.h"

namespace core::bridge {
namespace {

using nn::GraphNode;
using util::Error;
using util::Json;

// Modules PyTorch has no ready-made class for, one per graph op that needs one; only those the
// model uses are written out.
const std::map<std::string, std::string>& helperModules() {
  static const std::map<std::string, std::string> kHelpers = {
      {"residual", R"PY(
class Residual(nn.Module):
    """y = after(main(x) + shortcut(x)); no shortcut = the identity."""
    def __init__(self, main, shortcut=None, after=None):
        super().__init__()
        self.main, self.shortcut, self.after = main, shortcut, after

    def forward(self, x):
        y = self.main(x) + (self.shortcut(x) if self.shortcut is not None else x)
        return self.after(y) if self.after is not None else y
)PY"},
      {"concat", R"PY(
class Concat(nn.Module):
    """Branches on the same input, outputs stacked along the channels (Inception)."""
    def __init__(self, *branches):
        super().__init__()
        self.branches = nn.ModuleList(branches)

    def forward(self, x):
        return torch.cat([b(x) for b in self.branches], dim=1)
)PY"},
      {"global_avg_pool", R"PY(
class GlobalAvgPool(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return x.mean(dim=self.dim)
)PY"},
      {"avg_pool2d", R"PY(
class AvgPoolExcludingPadding(nn.Module):
    """Average pooling with uneven ("same") padding left out of the average (Keras)."""
    def __init__(self, kernel, stride, pads):
        super().__init__()
        self.kernel, self.stride, self.pads = kernel, stride, pads

    def forward(self, x):
        ones = torch.ones_like(x[:1, :1])
        total = F.avg_pool2d(F.pad(x, self.pads), self.kernel, self.stride)
        share = F.avg_pool2d(F.pad(ones, self.pads), self.kernel, self.stride)
        return total / share
)PY"},
      {"one_hot", R"PY(
class OneHot(nn.Module):
    def __init__(self, vocabulary):
        super().__init__()
        self.vocabulary = vocabulary

    def forward(self, x):
        return F.one_hot(x.long(), self.vocabulary).float()
)PY"},
      {"lstm", R"PY(
class KerasLSTM(nn.Module):
    """Keras' LSTM(units) (or Bidirectional, merge concat): the last output of each direction.
    Glorot kernel, orthogonal recurrent kernel, one bias with the forget gate's at 1 (PyTorch's
    second bias is held at zero, so the trainable parameters are Keras')."""
    def __init__(self, features, units, directions):
        super().__init__()
        self.lstm = nn.LSTM(features, units, batch_first=True, bidirectional=directions == 2)
        for name, p in self.lstm.named_parameters():
            with torch.no_grad():
                if name.startswith("weight_ih"):
                    init_weight(p, "glorot_uniform", features, 4 * units)
                elif name.startswith("weight_hh"):
                    nn.init.orthogonal_(p)
                elif name.startswith("bias_ih"):
                    p.zero_()
                    p[units:2 * units] = 1.0
                else:
                    p.zero_()
                    p.requires_grad_(False)

    def forward(self, x):
        _, (h, _) = self.lstm(x)
        return torch.cat([h[i] for i in range(h.shape[0])], dim=1)
)PY"},
      {"pad_shortcut", R"PY(
class PadShortcut(nn.Module):
    """ResNet option A: subsample by the stride, zero channels added on both sides."""
    def __init__(self, channels, out_channels, stride):
        super().__init__()
        self.pad, self.stride = (out_channels - channels) // 2, stride

    def forward(self, x):
        if self.stride > 1:
            x = x[:, :, ::self.stride, ::self.stride]
        return F.pad(x, (0, 0, 0, 0, self.pad, self.pad))
)PY"},
      {"position_embedding", R"PY(
class PositionEmbedding(nn.Module):
    def __init__(self, steps, dim):
        super().__init__()
        self.table = nn.Parameter(torch.empty(1, steps, dim).normal_(0.0, 0.02))

    def forward(self, x):
        return x + self.table[:, :x.shape[1]]
)PY"},
      {"self_attention", R"PY(
class SelfAttention(nn.Module):
    """Scaled dot-product attention over a fused q|k|v projection (B, T, 3d) -> (B, T, d)."""
    def __init__(self, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal

    def forward(self, qkv):
        B, T, three_d = qkv.shape
        d = three_d // 3
        q, k, v = (t.reshape(B, T, self.heads, d // self.heads).transpose(1, 2) for t in qkv.split(d, dim=2))
        if hasattr(F, "scaled_dot_product_attention"):  # PyTorch >= 2.0: fused kernels
            y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        else:
            att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
            if self.causal:
                mask = torch.ones(T, T, dtype=torch.bool, device=qkv.device).triu(1)
                att = att.masked_fill(mask, float("-inf"))
            y = att.softmax(dim=-1) @ v
        return y.transpose(1, 2).reshape(B, T, d)
)PY"},
      {"patchify", R"PY(
class Patchify(nn.Module):
    """(B, C, H, W) -> (B, patches, C*p*p): non-overlapping p x p patches, row-major."""
    def __init__(self, patch):
        super().__init__()
        self.p = patch

    def forward(self, x):
        B, C, H, W = x.shape
        p = self.p
        x = x.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 1, 3, 5)
        return x.reshape(B, (H // p) * (W // p), C * p * p)
)PY"},
      {"class_token", R"PY(
class ClassToken(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.token = nn.Parameter(torch.empty(1, 1, dim).normal_(0.0, 0.02))

    def forward(self, x):
        return torch.cat([self.token.expand(x.shape[0], -1, -1), x], dim=1)
)PY"},
      {"take_token", R"PY(
class TakeToken(nn.Module):
    def __init__(self, step):
        super().__init__()
        self.step = step

    def forward(self, x):
        return x[:, self.step]
)PY"},
  };
  return kHelpers;
}

// What a tensor looks like in PyTorch at a point of the network (batch first).
enum class Form { Image, Vector, Sequence, Tokens };

std::string num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::ostringstream s;
  s.precision(6);  // the layers hold floats: 1e-05, not 9.99999975e-06
  s << v;
  return s.str();
}

std::string pyBool(double v) { return v != 0 ? "True" : "False"; }
std::string pyStr(const std::string& s) { return Json(s).dump(); }

std::string identifier(const std::string& layerName, const std::string& fallback) {
  std::string base = layerName.substr(layerName.rfind('/') == std::string::npos ? 0 : layerName.rfind('/') + 1);
  if (base.empty()) base = fallback;
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  if (std::isdigit(static_cast<unsigned char>(base[0]))) base = "l_" + base;
  return base;
}

class ModelWriter {
public:
  // The body of build_model(): returns the expression of the whole network.
  std::string write(const std::vector<GraphNode>& nodes, Form input) {
    Form f = input;
    return sequence(nodes, f, 1);
  }
  const std::set<std::string>& helpers() const { return m_helpers; }

private:
  struct Entry {
    std::string name, expr;
  };

  std::string sequence(const std::vector<GraphNode>& nodes, Form& f, int depth) {
    std::vector<Entry> entries;
    for (const auto& n : nodes) emit(n, f, entries, depth + 1);
    const std::string pad(static_cast<std::size_t>(4 * depth), ' ');
    std::set<std::string> used;
    std::string s = "nn.Sequential(OrderedDict([\n";
    for (auto& e : entries) {
      std::string name = e.name;
      for (int k = 2; used.count(name); ++k) name = e.name + "_" + std::to_string(k);
      used.insert(name);
      s += pad + "    (" + pyStr(name) + ", " + e.expr + "),\n";
    }
    return s + pad + "]))";
  }

  static bool symmetric(const GraphNode& n) {
    return n.number("pad_top") == n.number("pad_bottom") && n.number("pad_left") == n.number("pad_right");
  }
  static std::string pads(const GraphNode& n) {  // F.pad order: left, right, top, bottom
    return "(" + num(n.number("pad_left")) + ", " + num(n.number("pad_right")) + ", " + num(n.number("pad_top")) + ", " +
           num(n.number("pad_bottom")) + ")";
  }
  static std::string pair(const GraphNode& n, const char* a, const char* b) {
    return "(" + num(n.number(a)) + ", " + num(n.number(b)) + ")";
  }

  void activationAfter(const GraphNode& n, const std::string& name, std::vector<Entry>& out) {
    const std::string& a = n.word("activation");
    if (a != "linear") out.push_back({name + "_" + a, "activation(" + pyStr(a) + ")"});
  }

  [[noreturn]] void unsupported(const GraphNode& n, const std::string& why) {
    throw Error("layer '" + n.name + "' (" + n.op + "): " + why + "; PyTorch export cannot express it");
  }

  void emit(const GraphNode& n, Form& f, std::vector<Entry>& out, int depth) {
    const std::string name = identifier(n.name, n.op);
    if (n.op == "flatten") {
      if (f != Form::Vector) out.push_back({name, "nn.Flatten()"});
      f = Form::Vector;
    } else if (n.op == "linear") {
      const bool perToken = n.number("per_token") != 0;
      if (perToken && f != Form::Sequence) unsupported(n, "a per-token projection of a tensor that is not a sequence");
      if (!perToken && f != Form::Vector) {
        out.push_back({name + "_flatten", "nn.Flatten()"});
        f = Form::Vector;
      }
      const std::int64_t fanIn = perToken ? n.in.c : n.in.size();
      std::string e = "linear(" + num(static_cast<double>(fanIn)) + ", " + num(n.number("units")) + ", bias=" +
                      pyBool(n.number("bias")) + ", init=" + pyStr(n.word("init"));
      if (n.number("init_scale") != 1) e += ", scale=" + num(n.number("init_scale"));
      out.push_back({name, e + ")"});
      activationAfter(n, name, out);
    } else if (n.op == "conv2d" || n.op == "depthwise_conv2d") {
      if (f != Form::Image) unsupported(n, "a convolution of a tensor that is not an image");
      std::string padding = pair(n, "pad_top", "pad_left");
      if (!symmetric(n)) {
        out.push_back({name + "_pad", "nn.ZeroPad2d(" + pads(n) + ")"});
        padding = "0";
      }
      const bool depthwise = n.op == "depthwise_conv2d";
      const int filters = depthwise ? n.out.c : static_cast<int>(n.number("filters"));
      out.push_back({name, "conv2d(" + num(n.in.c) + ", " + num(filters) + ", " + pair(n, "kernel_h", "kernel_w") +
                               ", stride=" + pair(n, "stride_h", "stride_w") + ", padding=" + padding + ", bias=" +
                               pyBool(n.number("bias")) + ", init=" + pyStr(n.word("init")) +
                               (depthwise ? ", groups=" + num(n.in.c) : std::string()) + ")"});
      if (!depthwise) activationAfter(n, name, out);
    } else if (n.op == "batch_norm") {
      if (f == Form::Sequence || f == Form::Tokens) unsupported(n, "batch norm over a sequence");
      out.push_back({name, "batch_norm(" + std::string(f == Form::Image ? "2" : "1") + ", " + num(n.in.c) + ", eps=" +
                               num(n.number("epsilon")) + ", keep=" + num(n.number("keep")) + ", scale=" +
                               pyBool(n.number("scale")) + ", center=" + pyBool(n.number("center")) + ")"});
    } else if (n.op == "activation") {
      const std::string& a = n.word("activation");
      if (a != "linear") out.push_back({name, "activation(" + pyStr(a) + ")"});
    } else if (n.op == "dropout") {
      out.push_back({name, "nn.Dropout(" + num(n.number("rate")) + ")"});
    } else if (n.op == "max_pool2d") {
      if (f != Form::Image) unsupported(n, "pooling a tensor that is not an image");
      std::string padding = pair(n, "pad_top", "pad_left");
      if (!symmetric(n)) {
        out.push_back({name + "_pad", "nn.ConstantPad2d(" + pads(n) + ", float(\"-inf\"))"});
        padding = "0";
      }
      out.push_back({name, "nn.MaxPool2d(" + pair(n, "kernel_h", "kernel_w") + ", stride=" + pair(n, "stride_h", "stride_w") +
                               ", padding=" + padding + ")"});
    } else if (n.op == "avg_pool2d") {
      if (f != Form::Image) unsupported(n, "pooling a tensor that is not an image");
      if (symmetric(n)) {
        out.push_back({name, "nn.AvgPool2d(" + pair(n, "kernel_h", "kernel_w") + ", stride=" + pair(n, "stride_h", "stride_w") +
                                 ", padding=" + pair(n, "pad_top", "pad_left") + ", count_include_pad=False)"});
      } else {
        m_helpers.insert("avg_pool2d");
        out.push_back({name, "AvgPoolExcludingPadding(" + pair(n, "kernel_h", "kernel_w") + ", " +
                                 pair(n, "stride_h", "stride_w") + ", " + pads(n) + ")"});
      }
    } else if (n.op == "global_avg_pool") {
      m_helpers.insert("global_avg_pool");
      const bool steps = n.word("over") == "steps";
      if (steps ? f != Form::Sequence : f != Form::Image) unsupported(n, "global pooling of an unexpected tensor");
      out.push_back({name, steps ? "GlobalAvgPool(dim=1)" : "GlobalAvgPool(dim=(2, 3))"});
      f = Form::Vector;
    } else if (n.op == "embedding") {
      if (f != Form::Tokens) unsupported(n, "an embedding of something other than token ids");
      out.push_back({name, "embedding(" + num(n.number("vocabulary")) + ", " + num(n.number("dim")) + ", " +
                               pyStr(n.word("init")) + ")"});
      f = Form::Sequence;
    } else if (n.op == "one_hot") {
      if (f != Form::Tokens) unsupported(n, "one-hot of something other than token ids");
      m_helpers.insert("one_hot");
      out.push_back({name, "OneHot(" + num(n.number("vocabulary")) + ")"});
      f = Form::Sequence;
    } else if (n.op == "lstm") {
      if (f != Form::Sequence) unsupported(n, "an LSTM over something other than a sequence");
      m_helpers.insert("lstm");
      out.push_back({name, "KerasLSTM(" + num(n.in.c) + ", " + num(n.number("units")) + ", " +
                               num(n.number("directions")) + ")"});
      f = Form::Vector;
    } else if (n.op == "pad_shortcut") {
      m_helpers.insert("pad_shortcut");
      const int stride = n.out.h < n.in.h ? 2 : 1;
      out.push_back({name, "PadShortcut(" + num(n.in.c) + ", " + num(n.number("out_channels")) + ", " + num(stride) + ")"});
    } else if (n.op == "layer_norm") {
      out.push_back({name, "nn.LayerNorm(" + num(n.in.c) + ", eps=" + num(n.number("epsilon")) + ")"});
    } else if (n.op == "gelu") {
      out.push_back({name, "nn.GELU()"});
    } else if (n.op == "position_embedding") {
      m_helpers.insert("position_embedding");
      out.push_back({name, "PositionEmbedding(" + num(n.in.h) + ", " + num(n.in.c) + ")"});
    } else if (n.op == "self_attention") {
      m_helpers.insert("self_attention");
      out.push_back({name, "SelfAttention(" + num(n.number("heads")) + ", causal=" + pyBool(n.number("causal")) + ")"});
    } else if (n.op == "patchify") {
      if (f != Form::Image) unsupported(n, "patches of something other than an image");
      m_helpers.insert("patchify");
      out.push_back({name, "Patchify(" + num(n.number("patch")) + ")"});
      f = Form::Sequence;
    } else if (n.op == "class_token") {
      m_helpers.insert("class_token");
      out.push_back({name, "ClassToken(" + num(n.in.c) + ")"});
    } else if (n.op == "take_token") {
      m_helpers.insert("take_token");
      out.push_back({name, "TakeToken(" + num(n.number("step")) + ")"});
      f = Form::Vector;
    } else if (n.op == "residual") {
      m_helpers.insert("residual");
      Form main = f, shortcut = f;
      const std::string mainExpr = sequence(n.branches.at(0), main, depth);
      const std::string shortExpr = n.branches.at(1).empty() ? "None" : sequence(n.branches.at(1), shortcut, depth);
      const std::string& a = n.word("activation");
      out.push_back({name, "Residual(" + mainExpr + ", " + shortExpr + ", " +
                               (a == "linear" ? std::string("None") : "activation(" + pyStr(a) + ")") + ")"});
      f = main;
    } else if (n.op == "concat") {
      if (f != Form::Image) unsupported(n, "a concatenation of non-images");
      m_helpers.insert("concat");
      std::string e = "Concat(";
      for (std::size_t b = 0; b < n.branches.size(); ++b) {
        Form bf = f;
        e += (b ? ", " : "") + sequence(n.branches[b], bf, depth);
      }
      out.push_back({name, e + ")"});
    } else if (n.op == "sequential") {
      for (const auto& c : n.branches.at(0)) emit(c, f, out, depth);
    } else {
      unsupported(n, "an op the exporter does not know");
    }
  }

  std::set<std::string> m_helpers;
};

}  // namespace

TorchModel writeTorchModel(const std::vector<GraphNode>& graph, bool tokens) {
  ModelWriter writer;
  TorchModel m;
  m.expression = writer.write(graph, tokens ? Form::Tokens : Form::Image);
  m.helpers = writer.helpers();
  return m;
}

std::string torchHelperModules(const std::set<std::string>& names) {
  std::string out;
  for (const auto& h : names) out += helperModules().at(h);
  return out;
}

}  // namespace core::bridge
