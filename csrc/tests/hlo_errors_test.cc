// Shape inference and misuse errors: every bad call throws
// std::invalid_argument whose message names the op and, for type errors, the
// operand types. No device needed.
#include <gtest/gtest.h>

#include <functional>

#include "hlo/module.h"

namespace torchtpu::hlo {
namespace {

using Args = std::vector<Value>;

// Runs `fn`, expects std::invalid_argument, and checks that every string in
// `parts` occurs in the message.
void expectError(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    for (const std::string& p : parts) {
      EXPECT_NE(msg.find(p), std::string::npos) << "message lacks '" << p << "': " << msg;
    }
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return;
  }
  ADD_FAILURE() << "no exception; expected one mentioning '" << (parts.empty() ? "" : parts[0])
                << "'";
}

class ErrorsTest : public ::testing::Test {
 protected:
  ErrorsTest()
      : f(m.addFunction(
            "main",
            {TensorType(ElementType::kF32, {2, 3}), TensorType(ElementType::kF32, {3, 2}),
             TensorType(ElementType::kS32), TensorType(ElementType::kF32, {3}),
             TensorType(ElementType::kPred, {2, 3}), TensorType(ElementType::kC64, {3})},
            true)),
        x(f.param(0)),
        y(f.param(1)),
        i(f.param(2)),
        v(f.param(3)),
        b(f.param(4)),
        z(f.param(5)) {}
  Module m{"errors"};
  Function& f;
  Value x, y, i, v, b, z;  // f32[2,3], f32[3,2], i32[], f32[3], i1[2,3], c64[3]
};

TEST_F(ErrorsTest, Elementwise) {
  expectError([&] { f.add(x, y); }, {"stablehlo.add", "tensor<2x3xf32>", "tensor<3x2xf32>"});
  expectError([&] { f.add(x, f.convert(x, ElementType::kS32)); },
              {"stablehlo.add", "tensor<2x3xi32>"});
  expectError([&] { f.subtract(b, b); }, {"stablehlo.subtract", "tensor<2x3xi1>"});
  expectError([&] { f.binary(BinaryOp::kShiftLeft, x, x); }, {"stablehlo.shift_left", "integer"});
  expectError([&] { f.binary(BinaryOp::kAnd, x, x); }, {"stablehlo.and"});
  expectError([&] { f.binary(BinaryOp::kComplex, z, z); }, {"stablehlo.complex", "f32 or f64"});
  expectError([&] { f.binary(BinaryOp::kRemainder, z, z); }, {"stablehlo.remainder"});
  expectError([&] { f.unary(UnaryOp::kFloor, i); }, {"stablehlo.floor", "tensor<i32>"});
  expectError([&] { f.unary(UnaryOp::kNot, x); }, {"stablehlo.not"});
  expectError([&] { f.unary(UnaryOp::kIsFinite, i); }, {"stablehlo.is_finite"});
  expectError([&] { f.unary(UnaryOp::kPopcnt, x); }, {"stablehlo.popcnt"});
  expectError([&] { f.unary(UnaryOp::kExponential, i); }, {"stablehlo.exponential"});
  expectError([&] { f.compare(x, y, ComparisonDirection::kLt); }, {"stablehlo.compare"});
  expectError([&] { f.compare(i, i, ComparisonDirection::kLt, ComparisonType::kFloat); },
              {"stablehlo.compare", "FLOAT"});
  expectError([&] { f.compare(z, z, ComparisonDirection::kLt); }, {"stablehlo.compare", "EQ"});
  expectError([&] { f.select(x, x, x); }, {"stablehlo.select", "i1"});
  expectError([&] { f.select(b, x, v); }, {"stablehlo.select"});
  expectError([&] { f.clamp(v, x, v); }, {"stablehlo.clamp"});
  expectError([&] { f.convert(z, ElementType::kF32); }, {"stablehlo.convert", "real"});
  expectError([&] { f.bitcastConvert(x, ElementType::kF64); },
              {"stablehlo.bitcast_convert", "last dimension must be 2"});
  expectError([&] { f.bitcastConvert(b, ElementType::kU8); }, {"stablehlo.bitcast_convert"});
  expectError([&] { f.reducePrecision(i, 5, 10); }, {"stablehlo.reduce_precision"});
  expectError([&] { f.reducePrecision(x, 0, 10); }, {"stablehlo.reduce_precision"});
}

TEST_F(ErrorsTest, Constants) {
  expectError([&] { f.constant(3.5, ElementType::kS32); }, {"constant", "i32"});
  expectError([&] { f.constant(300, ElementType::kU8); }, {"constant", "ui8"});
  expectError([&] { f.constant(-1, ElementType::kU32); }, {"constant"});
  expectError([&] { f.constantInt(128, ElementType::kS8); }, {"constant", "i8"});
  expectError([&] { f.constantComplex(1, 2, ElementType::kF32); }, {"complex"});
  expectError([&] { f.constantData(TensorType(ElementType::kF32, {2}), nullptr); }, {"null"});
  expectError([&] { f.iota(TensorType(ElementType::kS32, {2}), 1); }, {"stablehlo.iota"});
  expectError([&] { f.iota(TensorType(ElementType::kS32), 0); }, {"stablehlo.iota"});
}

TEST_F(ErrorsTest, Shapes) {
  expectError([&] { f.broadcastInDim(x, {3, 3}, {0, 1}); },
              {"stablehlo.broadcast_in_dim", "tensor<2x3xf32>"});
  expectError([&] { f.broadcastInDim(x, {2, 3}, {0}); }, {"stablehlo.broadcast_in_dim"});
  expectError([&] { f.broadcastInDim(x, {2, 3}, {0, 2}); }, {"stablehlo.broadcast_in_dim"});
  expectError([&] { f.broadcastInDim(x, {2, 3}, {1, 1}); }, {"stablehlo.broadcast_in_dim"});
  expectError([&] { f.reshape(x, {4}); }, {"stablehlo.reshape", "6 elements"});
  expectError([&] { f.reshape(x, {-1, 6}); }, {"stablehlo.reshape"});
  expectError([&] { f.transpose(x, {0, 0}); }, {"stablehlo.transpose"});
  expectError([&] { f.transpose(x, {1}); }, {"stablehlo.transpose"});
  expectError([&] { f.reverse(x, {2}); }, {"stablehlo.reverse"});
  expectError([&] { f.slice(x, {0, 0}, {3, 3}); }, {"stablehlo.slice"});
  expectError([&] { f.slice(x, {1, 0}, {0, 3}); }, {"stablehlo.slice"});
  expectError([&] { f.slice(x, {0, 0}, {2, 3}, {1, 0}); }, {"stablehlo.slice"});
  expectError([&] { f.slice(x, {0}, {2}); }, {"stablehlo.slice"});
  expectError([&] { f.dynamicSlice(x, {i}, {1, 1}); }, {"stablehlo.dynamic_slice"});
  expectError([&] { f.dynamicSlice(x, {i, f.convert(i, ElementType::kF32)}, {1, 1}); },
              {"stablehlo.dynamic_slice", "integer scalars"});
  expectError([&] { f.dynamicSlice(x, {i, f.convert(i, ElementType::kS64)}, {1, 1}); },
              {"stablehlo.dynamic_slice", "same type"});
  expectError([&] { f.dynamicSlice(x, {i, i}, {3, 1}); }, {"stablehlo.dynamic_slice"});
  expectError([&] { f.dynamicUpdateSlice(x, y, {i, i}); }, {"stablehlo.dynamic_update_slice"});
  expectError([&] { f.dynamicUpdateSlice(x, v, {i, i}); }, {"stablehlo.dynamic_update_slice"});
  expectError([&] { f.concatenate({x, y}, 0); }, {"stablehlo.concatenate"});
  expectError([&] { f.concatenate({x, x}, 2); }, {"stablehlo.concatenate"});
  expectError([&] { f.concatenate({x, b}, 0); }, {"stablehlo.concatenate"});
  expectError([&] { f.concatenate({}, 0); }, {"stablehlo.concatenate"});
  Value zero = f.constant(0, ElementType::kF32);
  expectError([&] { f.pad(x, v, {0, 0}, {0, 0}); }, {"stablehlo.pad"});
  expectError([&] { f.pad(x, zero, {0, 0}, {0, 0}, {-1, 0}); }, {"stablehlo.pad"});
  expectError([&] { f.pad(x, zero, {-3, 0}, {0, 0}); }, {"stablehlo.pad", "negative"});
  expectError([&] { f.pad(x, zero, {0}, {0}); }, {"stablehlo.pad"});
}

TEST_F(ErrorsTest, Contractions) {
  expectError([&] { f.dotGeneral(x, x, DotDims{{}, {}, {1}, {0}}); },
              {"stablehlo.dot_general", "contracting dimension sizes differ"});
  expectError([&] { f.dotGeneral(x, f.convert(y, ElementType::kF16), DotDims{{}, {}, {1}, {0}}); },
              {"stablehlo.dot_general", "element types"});
  expectError([&] { f.dotGeneral(x, y, DotDims{{0}, {0}, {0}, {1}}); }, {"stablehlo.dot_general"});
  expectError([&] { f.dotGeneral(x, y, DotDims{{}, {}, {1}, {}}); }, {"stablehlo.dot_general"});
  expectError([&] { f.dotGeneral(x, y, DotDims{{}, {}, {5}, {0}}); }, {"stablehlo.dot_general"});
  Value in = f.constant(0, ElementType::kF32, {1, 4, 5, 5});
  Value k = f.constant(0, ElementType::kF32, {8, 2, 3, 3});
  const ConvDims nchw = ConvDims::channelsFirst(2);
  expectError([&] { f.convolution(x, k, nchw); }, {"stablehlo.convolution", "rank"});
  expectError([&] { f.convolution(in, k, nchw); },
              {"stablehlo.convolution", "feature_group_count"});
  f.convolution(in, k, nchw, {}, {}, {}, {}, 2);  // valid with two feature groups
  expectError([&] { f.convolution(in, k, nchw, {}, {}, {}, {}, 2, 2); },
              {"stablehlo.convolution", "not both"});
  expectError([&] { f.convolution(in, k, nchw, {0, 1}, {}, {}, {}, 2); },
              {"stablehlo.convolution", ">= 1"});
  expectError([&] { f.convolution(in, k, nchw, {1}, {}, {}, {}, 2); }, {"stablehlo.convolution"});
  ConvDims bad = nchw;
  bad.inputFeature = 0;
  expectError([&] { f.convolution(in, k, bad); }, {"stablehlo.convolution", "input layout"});
  bad = nchw;
  bad.kernelSpatial = {2};
  expectError([&] { f.convolution(in, k, bad); }, {"stablehlo.convolution", "spatial"});
}

TEST_F(ErrorsTest, Regions) {
  Value zero = f.constant(0, ElementType::kF32);
  auto sum = [](Function& r, const Args& a) -> Args { return {r.add(a[0], a[1])}; };
  expectError([&] { f.reduce({x}, {f.constantInt(0, ElementType::kS32)}, {0}, sum); },
              {"stablehlo.reduce", "init value 0"});
  expectError([&] { f.reduce({x}, {zero}, {2}, sum); }, {"stablehlo.reduce", "dimensions"});
  expectError([&] { f.reduce({x, y}, {zero, zero}, {0}, sum); }, {"stablehlo.reduce"});
  expectError(
      [&] {
        f.reduce({x}, {zero}, {0}, [](Function& r, const Args& a) -> Args {
          return {r.convert(a[0], ElementType::kF64)};
        });
      },
      {"stablehlo.reduce", "region must return (tensor<f32>)", "tensor<f64>"});
  expectError(
      [&] { f.reduce({x}, {zero}, {0}, [](Function&, const Args& a) -> Args { return a; }); },
      {"stablehlo.reduce", "region must return"});
  // Reduce bodies are isolated: outer values cannot be used inside.
  expectError(
      [&] {
        f.reduce({x}, {zero}, {0},
                 [&](Function& r, const Args& a) -> Args { return {r.add(a[0], zero)}; });
      },
      {"stablehlo.add", "cannot use values of the enclosing function"});
  expectError([&] { f.reduceWindow({x}, {zero}, {2}, {}, {}, {}, {}, sum); },
              {"stablehlo.reduce_window"});
  expectError([&] { f.reduceWindow({x}, {zero}, {0, 1}, {}, {}, {}, {}, sum); },
              {"stablehlo.reduce_window"});
  auto less = [](Function& r, const Args& a) -> Args {
    return {r.compare(a[0], a[1], ComparisonDirection::kLt)};
  };
  expectError([&] { f.sort({x}, 2, false, less); }, {"stablehlo.sort", "dimension"});
  expectError([&] { f.sort({x, y}, 0, false, less); }, {"stablehlo.sort"});
  expectError(
      [&] { f.sort({x}, 0, false, [](Function&, const Args& a) -> Args { return {a[0]}; }); },
      {"stablehlo.sort", "tensor<i1>"});
  expectError(
      [&] {
        f.whileLoop(
            {i},
            [](Function& c, const Args& a) -> Args {
              return {c.compare(a[0], a[0], ComparisonDirection::kEq)};
            },
            [](Function& bd, const Args& a) -> Args {
              return {bd.convert(a[0], ElementType::kS64)};
            });
      },
      {"stablehlo.while body", "region must return"});
  Value p = f.constant(1, ElementType::kPred);
  expectError(
      [&] {
        f.ifElse(
            p, [&](Function& t, const Args&) -> Args { return {t.constant(1, ElementType::kF32)}; },
            [&](Function& e, const Args&) -> Args { return {e.constant(1, ElementType::kF64)}; });
      },
      {"stablehlo.if else", "tensor<f32>", "tensor<f64>"});
  expectError(
      [&] {
        f.ifElse(
            b, [](Function&, const Args&) { return Args{}; },
            [](Function&, const Args&) { return Args{}; });
      },
      {"stablehlo.if", "tensor<i1>"});
  // A value made inside a region cannot leak out.
  Value leaked;
  f.whileLoop(
      {i},
      [&](Function& c, const Args& a) -> Args {
        leaked = c.constant(1, ElementType::kF32);
        return {c.compare(a[0], a[0], ComparisonDirection::kNe)};
      },
      [](Function&, const Args& a) -> Args { return a; });
  expectError([&] { f.negate(leaked); }, {"stablehlo.negate", "not visible"});
  // ret() is not for regions.
  expectError(
      [&] {
        f.reduce({x}, {zero}, {0}, [](Function& r, const Args& a) -> Args {
          r.ret({a[0]});
          return {a[0]};
        });
      },
      {"ret()"});
}

TEST_F(ErrorsTest, GatherScatterRng) {
  Value idx = f.constantInt(0, ElementType::kS32, {4});
  const GatherDims rows{{1}, {0}, {}, {}, {0}, 1};
  f.gather(y, idx, rows, {1, 2});  // valid
  expectError([&] { f.gather(y, idx, rows, {2, 2}); }, {"stablehlo.gather", "slice_sizes"});
  expectError([&] { f.gather(y, idx, rows, {1, 3}); }, {"stablehlo.gather", "slice_sizes"});
  expectError([&] { f.gather(y, f.convert(idx, ElementType::kF32), rows, {1, 2}); },
              {"stablehlo.gather", "integers"});
  expectError([&] { f.gather(y, idx, GatherDims{{1}, {0}, {}, {}, {0, 1}, 1}, {1, 2}); },
              {"stablehlo.gather", "start_index_map"});
  expectError([&] { f.gather(y, idx, GatherDims{{2}, {0}, {}, {}, {0}, 1}, {1, 2}); },
              {"stablehlo.gather", "offset_dims"});
  expectError([&] { f.gather(y, idx, GatherDims{{1}, {0}, {}, {}, {0}, 3}, {1, 2}); },
              {"stablehlo.gather", "index_vector_dim"});
  const ScatterDims sd{{1}, {0}, {}, {}, {0}, 1};
  auto set = [](Function&, const Args& a) -> Args { return {a[1]}; };
  Value upd = f.constant(0, ElementType::kF32, {4, 2});
  f.scatter({y}, idx, {upd}, sd, set);  // valid
  expectError([&] { f.scatter({y}, idx, {f.constant(0, ElementType::kF32, {3, 2})}, sd, set); },
              {"stablehlo.scatter", "indices' batch dims"});
  expectError([&] { f.scatter({y}, idx, {f.constant(0, ElementType::kF32, {4, 3})}, sd, set); },
              {"stablehlo.scatter", "larger"});
  expectError([&] { f.scatter({y}, idx, {f.convert(upd, ElementType::kF64)}, sd, set); },
              {"stablehlo.scatter", "element type"});
  Value state = f.constantInt(0, ElementType::kU64, {2});
  expectError(
      [&] {
        f.rngBitGenerator(f.constantInt(0, ElementType::kU64, {3}), RngAlgorithm::kThreeFry,
                          TensorType(ElementType::kU32, {2}));
      },
      {"stablehlo.rng_bit_generator", "THREE_FRY"});
  expectError(
      [&] {
        f.rngBitGenerator(f.constantInt(0, ElementType::kS32, {2}), RngAlgorithm::kDefault,
                          TensorType(ElementType::kU32, {2}));
      },
      {"stablehlo.rng_bit_generator", "ui64"});
  expectError(
      [&] { f.rngBitGenerator(state, RngAlgorithm::kPhilox, TensorType(ElementType::kF32)); },
      {"stablehlo.rng_bit_generator", "integer"});
}

TEST(Errors, ValuesAndFunctions) {
  Module m("mod");
  const TensorType t(ElementType::kF32, {2});
  Function& helper = m.addFunction("helper", {t});
  Function& main = m.addFunction("main", {t}, true);
  // A value of another function.
  expectError([&] { main.negate(helper.param(0)); }, {"stablehlo.negate", "not a value of this"});
  expectError([&] { main.negate(Value{}); }, {"empty"});
  expectError([&] { main.call(helper, {main.param(0)}); }, {"func.call @helper", "ret()"});
  helper.ret({helper.negate(helper.param(0))});
  expectError([&] { main.call(helper, {}); }, {"func.call @helper", "expects arguments"});
  expectError([&] { main.call(main, {main.param(0)}); }, {"recursive"});
  Module other("other");
  Function& foreign = other.addFunction("f", {t});
  foreign.ret({foreign.param(0)});
  expectError([&] { main.call(foreign, {main.param(0)}); }, {"not a function of this module"});
  expectError([&] { main.param(1); }, {"out of range"});
  // Missing ret() at toText.
  expectError([&] { m.toText(); }, {"@main", "ret()"});
  main.aliasParamToOutput(0, 1);
  main.ret({main.param(0)});
  expectError([&] { main.ret({}); }, {"already finished"});
  expectError([&] { main.negate(main.param(0)); }, {"already finished"});
  expectError([&] { m.toText(); }, {"cannot alias output 1"});
  expectError([&] { main.markDonor(0); }, {"already aliases"});
  expectError([&] { main.markDonor(3); }, {"out of range"});
}

TEST(Errors, ModuleRules) {
  expectError([] { Module m("bad name"); }, {"invalid module name"});
  Module m("mod");
  const TensorType t(ElementType::kF32, {2});
  expectError([&] { m.addFunction("1x", {t}); }, {"invalid function name"});
  Function& priv = m.addFunction("main", {t});
  expectError([&] { m.addFunction("main", {t}, true); }, {"already exists"});
  priv.ret({priv.param(0)});
  expectError([&] { m.toText(); }, {"public function named 'main'"});
  Module none("none");
  expectError([&] { none.toText(); }, {"public function named 'main'"});
  expectError([&] { none.addFunction("main", {TensorType(ElementType::kF32, {-1})}, true); },
              {"negative dimension"});
  // Aliasing a parameter to an output of another type.
  Module a("a");
  Function& f = a.addFunction("main", {t}, true);
  f.aliasParamToOutput(0, 0);
  f.ret({f.convert(f.param(0), ElementType::kF64)});
  expectError([&] { a.toText(); }, {"cannot alias output 0"});
}

}  // namespace
}  // namespace torchtpu::hlo
