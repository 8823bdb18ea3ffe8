#include "hlo/conv_dims.h"

#include <stdexcept>

#include "hlo/attr_text.h"

namespace torchtpu::hlo {

namespace {

// Fills a layout table: slot d holds the letter or spatial number of dim d.
// Returns "" on success, else a description of the problem.
std::string layout(int64_t first, char firstName, int64_t second, char secondName,
                   const std::vector<int64_t>& spatial, std::vector<std::string>* out) {
  const int64_t rank = static_cast<int64_t>(spatial.size()) + 2;
  out->assign(rank, "");
  auto put = [&](int64_t dim, std::string name) -> bool {
    if (dim < 0 || dim >= rank || !(*out)[dim].empty()) return false;
    (*out)[dim] = std::move(name);
    return true;
  };
  if (!put(first, std::string(1, firstName)) || !put(second, std::string(1, secondName))) {
    return "dimension out of range or repeated";
  }
  for (size_t i = 0; i < spatial.size(); ++i) {
    if (!put(spatial[i], std::to_string(i))) return "spatial dimension out of range or repeated";
  }
  return "";
}

std::string joinLayout(const std::vector<std::string>& l) {
  std::string s = "[";
  for (size_t i = 0; i < l.size(); ++i) {
    if (i) s += ", ";
    s += l[i];
  }
  return s + "]";
}

}  // namespace

ConvDims ConvDims::channelsFirst(int64_t spatialRank) {
  ConvDims d;
  d.inputBatch = 0;
  d.inputFeature = 1;
  d.kernelOutputFeature = 0;
  d.kernelInputFeature = 1;
  d.outputBatch = 0;
  d.outputFeature = 1;
  for (int64_t i = 0; i < spatialRank; ++i) {
    d.inputSpatial.push_back(2 + i);
    d.kernelSpatial.push_back(2 + i);
    d.outputSpatial.push_back(2 + i);
  }
  return d;
}

ConvDims ConvDims::channelsLast(int64_t spatialRank) {
  ConvDims d;
  d.inputBatch = 0;
  d.inputFeature = spatialRank + 1;
  d.kernelInputFeature = spatialRank;
  d.kernelOutputFeature = spatialRank + 1;
  d.outputBatch = 0;
  d.outputFeature = spatialRank + 1;
  for (int64_t i = 0; i < spatialRank; ++i) {
    d.inputSpatial.push_back(1 + i);
    d.kernelSpatial.push_back(i);
    d.outputSpatial.push_back(1 + i);
  }
  return d;
}

void ConvDims::validate(const std::string& op) const {
  if (kernelSpatial.size() != inputSpatial.size() || outputSpatial.size() != inputSpatial.size()) {
    throw std::invalid_argument(op + ": conv dimension numbers have " +
                                std::to_string(inputSpatial.size()) + " input, " +
                                std::to_string(kernelSpatial.size()) + " kernel and " +
                                std::to_string(outputSpatial.size()) + " output spatial dims");
  }
  std::vector<std::string> l;
  std::string err;
  if (!(err = layout(inputBatch, 'b', inputFeature, 'f', inputSpatial, &l)).empty()) {
    throw std::invalid_argument(op + ": input layout: " + err);
  }
  if (!(err = layout(kernelOutputFeature, 'o', kernelInputFeature, 'i', kernelSpatial, &l))
           .empty()) {
    throw std::invalid_argument(op + ": kernel layout: " + err);
  }
  if (!(err = layout(outputBatch, 'b', outputFeature, 'f', outputSpatial, &l)).empty()) {
    throw std::invalid_argument(op + ": output layout: " + err);
  }
}

std::string ConvDims::attr() const {
  validate("stablehlo.convolution");
  std::vector<std::string> in, kernel, out;
  layout(inputBatch, 'b', inputFeature, 'f', inputSpatial, &in);
  layout(kernelOutputFeature, 'o', kernelInputFeature, 'i', kernelSpatial, &kernel);
  layout(outputBatch, 'b', outputFeature, 'f', outputSpatial, &out);
  return "#stablehlo.conv<" + joinLayout(in) + "x" + joinLayout(kernel) + "->" + joinLayout(out) +
         ">";
}

}  // namespace torchtpu::hlo
