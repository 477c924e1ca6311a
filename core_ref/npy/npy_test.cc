#include "core_ref/npy/npy.h"
#include "core_ref/npy/npy_stream_writer.h"
#include "core_ref/fileio/atomic_file.h"

#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace dashi {
namespace {

using ::testing::HasSubstr;

template <size_t N>
std::string Lit(const char (&s)[N]) {
  return std::string(s, N - 1);
}

std::span<const uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string ToString(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

// A .npy file with the given version and raw header text (no padding added) followed by `data`.
std::string MakeNpy(int major, const std::string& header, const std::string& data = "",
                    int minor = 0) {
  std::string out = Lit("\x93NUMPY");
  out += static_cast<char>(major);
  out += static_cast<char>(minor);
  uint32_t len = static_cast<uint32_t>(header.size());
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (major != 1) {
    out += static_cast<char>((len >> 16) & 0xff);
    out += static_cast<char>((len >> 24) & 0xff);
  }
  return out + header + data;
}

// A version 1.0 file with the header dict `dict` (padded like NumPy) and `data`.
std::string MakeNpy1(const std::string& dict, const std::string& data = "") {
  return ToString(npy_internal::WrapHeader(dict)) + data;
}

Status ParseStatus(const std::string& bytes) { return ParseNpy(AsBytes(bytes)).status(); }

#define EXPECT_ERROR(status_expr, code_, substr_)                     \
  do {                                                                \
    ::dashi::Status st_ = (status_expr);                              \
    EXPECT_EQ(st_.code(), (code_)) << st_.ToString();                 \
    EXPECT_THAT(st_.message(), HasSubstr(substr_)) << st_.ToString(); \
  } while (0)

// ------------------------------------------------------------------------------------------------
// Reference bytes written by NumPy 1.24.2 (Debian 12's python3-numpy), `np.save(f, a)`, embedded
// verbatim: preamble escaped, header text, then '\n' and the data bytes.
// (Regenerate with: python3 -c "import numpy as np, io; b = io.BytesIO(); np.save(b, a); ...".)

// clang-format off
// np.save of np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 1.5], '<f8').reshape(2, 3)
const std::string kF8_2x3 = Lit("\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00"
      "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }                                                          "
      "\n\x00\x00\x00\x00\x00\x00\xf0\xbf\x00\x00\x00\x00\x00\x00\xe0\xbf\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xe0\x3f\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\xf8\x3f");
// np.save of np.array([[0.1, -np.inf]], '<f4')
const std::string kF4_1x2 = Lit("\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00"
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }                                                          "
      "\n\xcd\xcc\xcc\x3d\x00\x00\x80\xff");
// np.save of np.array([-128, -1, 0, 127], 'i1')  -- NumPy writes '|i1' for 1-byte types
const std::string kI1_4 = Lit("\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00"
      "{'descr': '|i1', 'fortran_order': False, 'shape': (4,), }                                                            "
      "\n\x80\xff\x00\x7f");
// np.save of np.array(200, 'u1')  -- 0-d: shape (), no growth padding
const std::string kU1_0d = Lit("\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00"
      "{'descr': '|u1', 'fortran_order': False, 'shape': (), }                                                              "
      "\n\xc8");
// np.save of np.zeros((3, 0), '<i4')
const std::string kI4_3x0 = Lit("\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00"
      "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 0), }                                                          "
      "\n");
// np.save of np.array([-2**63, 1], '<i8')
const std::string kI8_2 = Lit("\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00"
      "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }                                                            "
      "\n\x00\x00\x00\x00\x00\x00\x00\x80\x01\x00\x00\x00\x00\x00\x00\x00");
// np.save of np.array([0, 2**64 - 1], '<u8').reshape(2, 1, 1)
const std::string kU8_2x1x1 = Lit("\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00"
      "{'descr': '<u8', 'fortran_order': False, 'shape': (2, 1, 1), }                                                       "
      "\n\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff");
// np.save of np.zeros((0, 100) + (10,) * 9, '<f8'): the unpadded header is already 64-aligned,
// and NumPy still adds 64 spaces (padlen is in [1, 64]).
const std::string kF8_Aligned = Lit("\x93\x4e\x55\x4d\x50\x59\x01\x00\xb6\x00"
      "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 100, 10, 10, 10, 10, 10, 10, 10, 10, 10), }                                                                                    "
      "\n");
// np.save of np.zeros((12345678901234567, 0), '<f8'): growth padding shrinks with a long axis 0
const std::string kF8_BigFirstAxis = Lit("\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00"
      "{'descr': '<f8', 'fortran_order': False, 'shape': (12345678901234567, 0), }                                          "
      "\n");

// clang-format on

template <NpyElement T>
void ExpectReference(const std::string& ref, std::vector<int64_t> shape, std::vector<T> values) {
  StatusOr<NpyArray> parsed = ParseNpy(AsBytes(ref));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->dtype, NpyDtypeOf<T>());
  EXPECT_EQ(parsed->shape, shape);
  StatusOr<std::vector<T>> got = parsed->template As<T>();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, values);

  StatusOr<NpyArray> built = NpyArray::From<T>(shape, values);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(*built, *parsed);
  StatusOr<std::vector<uint8_t>> bytes = SerializeNpy(*built);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(ToString(*bytes), ref) << "serialized bytes differ from NumPy's";
}

TEST(NpyReferenceTest, F8MatchesNumPyBytes) {
  ExpectReference<double>(kF8_2x3, {2, 3}, {-1.0, -0.5, 0.0, 0.5, 1.0, 1.5});
}
TEST(NpyReferenceTest, F4MatchesNumPyBytes) {
  ExpectReference<float>(kF4_1x2, {1, 2}, {0.1f, -std::numeric_limits<float>::infinity()});
}
TEST(NpyReferenceTest, I1MatchesNumPyBytes) {
  ExpectReference<int8_t>(kI1_4, {4}, {-128, -1, 0, 127});
}
TEST(NpyReferenceTest, U1ZeroDimMatchesNumPyBytes) { ExpectReference<uint8_t>(kU1_0d, {}, {200}); }
TEST(NpyReferenceTest, I4ZeroSizeMatchesNumPyBytes) {
  ExpectReference<int32_t>(kI4_3x0, {3, 0}, {});
}
TEST(NpyReferenceTest, I8MatchesNumPyBytes) {
  ExpectReference<int64_t>(kI8_2, {2}, {std::numeric_limits<int64_t>::min(), 1});
}
TEST(NpyReferenceTest, U8MatchesNumPyBytes) {
  ExpectReference<uint64_t>(kU8_2x1x1, {2, 1, 1}, {0, std::numeric_limits<uint64_t>::max()});
}
TEST(NpyReferenceTest, AlreadyAlignedHeaderGetsSixtyFourSpacesLikeNumPy) {
  ExpectReference<double>(kF8_Aligned, {0, 100, 10, 10, 10, 10, 10, 10, 10, 10, 10}, {});
  EXPECT_EQ(kF8_Aligned.size(), 192u);
}
TEST(NpyReferenceTest, LongFirstAxisShrinksGrowthPaddingLikeNumPy) {
  ExpectReference<double>(kF8_BigFirstAxis, {12345678901234567, 0}, {});
}

// ------------------------------------------------------------------------------------------------
// Round trips: every dtype, ranks 0-3, zero-size dims.

template <NpyElement T>
std::vector<T> SampleValues(size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      v[i] = static_cast<T>(static_cast<double>(i) * 0.37 - 1.5);
    } else {
      v[i] = static_cast<T>(i * 37u + 250u);  // wraps for narrow types on purpose
    }
  }
  if (n > 0) v[0] = std::numeric_limits<T>::lowest();
  if (n > 1) v[n - 1] = std::numeric_limits<T>::max();
  return v;
}

template <NpyElement T>
void RoundTripAllShapes() {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0}, {1}, {5}, {3, 0}, {0, 3}, {2, 3}, {1, 1}, {2, 3, 4}, {2, 0, 4}, {1, 2, 1}};
  for (const auto& shape : shapes) {
    SCOPED_TRACE("dtype " + std::string(NpyDescr(NpyDtypeOf<T>())) + " shape " +
                 NpyShapeString(shape));
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    std::vector<T> values = SampleValues<T>(n);
    StatusOr<NpyArray> a = NpyArray::From<T>(shape, values);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ(a->NumElements(), static_cast<int64_t>(n));
    EXPECT_EQ(a->data.size(), n * sizeof(T));
    StatusOr<std::vector<uint8_t>> bytes = SerializeNpy(*a);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    size_t preamble = bytes->size() - a->data.size();
    EXPECT_EQ(preamble % 64, 0u) << "preamble must be 64-byte aligned";
    EXPECT_EQ((*bytes)[preamble - 1], '\n');
    EXPECT_EQ((*bytes)[6], 1) << "format version 1.0";
    StatusOr<NpyArray> back = ParseNpy(*bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, *a);
    StatusOr<std::vector<T>> got = back->template As<T>();
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, values);
  }
}

TEST(NpyRoundTripTest, F8) { RoundTripAllShapes<double>(); }
TEST(NpyRoundTripTest, F4) { RoundTripAllShapes<float>(); }
TEST(NpyRoundTripTest, I1) { RoundTripAllShapes<int8_t>(); }
TEST(NpyRoundTripTest, U1) { RoundTripAllShapes<uint8_t>(); }
TEST(NpyRoundTripTest, I4) { RoundTripAllShapes<int32_t>(); }
TEST(NpyRoundTripTest, I8) { RoundTripAllShapes<int64_t>(); }
TEST(NpyRoundTripTest, U8) { RoundTripAllShapes<uint64_t>(); }

TEST(NpyRoundTripTest, FloatBitPatternsSurvive) {
  const uint64_t payload_nan = 0x7ff800000000abcdULL;
  std::vector<double> v = {-0.0, std::bit_cast<double>(payload_nan),
                           std::numeric_limits<double>::denorm_min(),
                           -std::numeric_limits<double>::infinity()};
  StatusOr<NpyArray> a = NpyArray::FromF64({4}, v);
  ASSERT_TRUE(a.ok());
  // Little-endian bytes regardless of the host: -0.0 is 00 .. 00 80.
  EXPECT_EQ(a->data[7], 0x80);
  EXPECT_EQ(a->data[0], 0x00);
  EXPECT_EQ(a->data[8], 0xcd);
  StatusOr<std::vector<uint8_t>> bytes = SerializeNpy(*a);
  ASSERT_TRUE(bytes.ok());
  StatusOr<NpyArray> back = ParseNpy(*bytes);
  ASSERT_TRUE(back.ok());
  StatusOr<std::vector<double>> got = back->As<double>();
  ASSERT_TRUE(got.ok());
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint64_t>((*got)[i]), std::bit_cast<uint64_t>(v[i])) << i;
  }
}

// ------------------------------------------------------------------------------------------------
// Reading what other writers produce.

TEST(NpyReadTest, AcceptsVersion2And3Headers) {
  const std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n";
  const std::string data = Lit("\x01\x00\x00\x00\xff\xff\xff\xff");
  for (int major : {1, 2, 3}) {
    SCOPED_TRACE(major);
    StatusOr<NpyArray> a = ParseNpy(AsBytes(MakeNpy(major, header, data)));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ(*a->As<int32_t>(), (std::vector<int32_t>{1, -1}));
  }
}

TEST(NpyReadTest, AcceptsLenientButValidPythonLiterals) {
  // Other key order, double quotes, no spaces, no trailing comma, no newline, CR/tab whitespace,
  // '<u1' for '|u1', Python 2 long suffix (versions 1.0 and 2.0 only, as NumPy's _filter_header).
  for (const std::string& h : {
           std::string("{\"shape\":(2,),\"fortran_order\":False,\"descr\":\"<u1\"}"),
           std::string("  {'descr':'|u1',\t'fortran_order' : False ,\r\n'shape' : ( 2 , ) }  \n"),
           std::string("{'descr': '|u1', 'fortran_order': False, 'shape': (2L,), }\n"),
       }) {
    SCOPED_TRACE(h);
    StatusOr<NpyArray> a = ParseNpy(AsBytes(MakeNpy(1, h, "ab")));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ(a->dtype, NpyDtype::kU1);
    EXPECT_EQ(a->shape, std::vector<int64_t>{2});
  }
  EXPECT_FALSE(
      ParseNpy(
          AsBytes(MakeNpy(3, "{'descr': '|u1', 'fortran_order': False, 'shape': (2L,), }\n", "ab")))
          .ok());
  StatusOr<NpyArray> two = ParseNpy(AsBytes(MakeNpy1(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2,), }", std::string(16, '\0'))));
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->shape, (std::vector<int64_t>{1, 2}));
}

TEST(NpyWriteTest, WrapHeaderSwitchesToVersion2PastSixtyFiveKilobytes) {
  std::vector<uint8_t> small = npy_internal::WrapHeader("{}");
  EXPECT_EQ(small[6], 1);
  EXPECT_EQ(small.size(), 64u);
  std::vector<uint8_t> big = npy_internal::WrapHeader(std::string(70000, 'x'));
  EXPECT_EQ(big[6], 2);
  EXPECT_EQ(big[7], 0);
  EXPECT_EQ(big.size() % 64, 0u);
  uint32_t len = big[8] | (big[9] << 8) | (big[10] << 16) | (static_cast<uint32_t>(big[11]) << 24);
  EXPECT_EQ(len + 12u, big.size());
  EXPECT_EQ(big.back(), '\n');
}

// ------------------------------------------------------------------------------------------------
// Malformed input: one test each, checking the code and that the message names the problem.

const std::string kGoodDict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
const std::string kGoodData(16, '\0');

TEST(NpyMalformedTest, Sanity) { EXPECT_TRUE(ParseStatus(MakeNpy1(kGoodDict, kGoodData)).ok()); }

TEST(NpyMalformedTest, BadMagic) {
  std::string f = MakeNpy1(kGoodDict, kGoodData);
  f[1] = 'M';
  EXPECT_ERROR(ParseStatus(f), StatusCode::kInvalidArgument, "bad magic");
  EXPECT_ERROR(ParseStatus(Lit("\x89PNG\r\n\x1a\n")), StatusCode::kInvalidArgument, "bad magic");
}

TEST(NpyMalformedTest, EmptyInputIsBadMagic) {
  EXPECT_ERROR(ParseNpy({}).status(), StatusCode::kInvalidArgument, "bad magic");
}

TEST(NpyMalformedTest, TruncatedPreamble) {
  EXPECT_ERROR(ParseStatus(Lit("\x93NUM")), StatusCode::kOutOfRange, "truncated preamble");
  EXPECT_ERROR(ParseStatus(Lit("\x93NUMPY\x01\x00\x76")), StatusCode::kOutOfRange,
               "truncated preamble");
  EXPECT_ERROR(ParseStatus(Lit("\x93NUMPY\x02\x00\x76\x00\x00")), StatusCode::kOutOfRange,
               "header length");
}

TEST(NpyMalformedTest, UnsupportedVersion) {
  EXPECT_ERROR(ParseStatus(MakeNpy(4, kGoodDict, kGoodData)), StatusCode::kUnimplemented,
               "unsupported .npy format version 4.0");
  EXPECT_ERROR(ParseStatus(MakeNpy(1, kGoodDict, kGoodData, /*minor=*/1)),
               StatusCode::kUnimplemented, "version 1.1");
  EXPECT_ERROR(ParseStatus(MakeNpy(0, kGoodDict, kGoodData)), StatusCode::kUnimplemented,
               "version 0.0");
}

TEST(NpyMalformedTest, HeaderLengthPastEndOfFile) {
  std::string f = MakeNpy(1, kGoodDict);
  f[8] = static_cast<char>(0xff);  // claims 0x??ff bytes of header
  f[9] = 0x01;
  EXPECT_ERROR(ParseStatus(f), StatusCode::kOutOfRange, "runs past the end of the file");
}

TEST(NpyMalformedTest, HeaderLargerThanNumPyCap) {
  // Version 1.0 with a 10001-byte header, present in full.
  std::string big = kGoodDict + std::string(10001 - kGoodDict.size(), ' ');
  EXPECT_ERROR(ParseStatus(MakeNpy(1, big, kGoodData)), StatusCode::kInvalidArgument,
               "header length 10001 exceeds the 10000-byte limit");
  // Version 2.0 claiming a ~4 GB header: rejected before anything is read or allocated.
  std::string f = MakeNpy(2, kGoodDict, kGoodData);
  f[8] = f[9] = f[10] = f[11] = static_cast<char>(0xff);
  EXPECT_ERROR(ParseStatus(f), StatusCode::kInvalidArgument,
               "header length 4294967295 exceeds the 10000-byte limit");
}

TEST(NpyMalformedTest, MissingKey) {
  EXPECT_ERROR(ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, }", "")),
               StatusCode::kInvalidArgument, "missing key 'shape'");
  EXPECT_ERROR(ParseStatus(MakeNpy1("{'fortran_order': False, 'shape': (2,), }", kGoodData)),
               StatusCode::kInvalidArgument, "missing key 'descr'");
  EXPECT_ERROR(ParseStatus(MakeNpy1("{'descr': '<f8', 'shape': (2,), }", kGoodData)),
               StatusCode::kInvalidArgument, "missing key 'fortran_order'");
}

TEST(NpyMalformedTest, UnknownKey) {
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'extra': 1, }",
                           kGoodData)),
      StatusCode::kInvalidArgument, "unknown key 'extra'");
}

TEST(NpyMalformedTest, DuplicateKey) {
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'shape': (2,)}",
                           kGoodData)),
      StatusCode::kInvalidArgument, "duplicate key 'shape'");
}

TEST(NpyMalformedTest, BadSyntax) {
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr' '<f8', 'fortran_order': False, 'shape': (2,), }", kGoodData)),
      StatusCode::kInvalidArgument, "expected ':' after key 'descr'");
  EXPECT_ERROR(ParseStatus(MakeNpy1("'descr': '<f8'", kGoodData)), StatusCode::kInvalidArgument,
               "expected '{'");
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8, 'fortran_order': False, 'shape': (2,)}", kGoodData)),
      StatusCode::kInvalidArgument, "malformed header");
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8' 'fortran_order': False, 'shape': (2,)}", kGoodData)),
      StatusCode::kInvalidArgument, "expected ',' or '}'");
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)", kGoodData)),
      StatusCode::kInvalidArgument, "end of header");
  EXPECT_ERROR(ParseStatus(MakeNpy1("{'descr': '<\\x66\\x38', 'fortran_order': False, "
                                    "'shape': (2,)}",
                                    kGoodData)),
               StatusCode::kInvalidArgument, "escape sequences");
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, 'shape': (2 3)}", kGoodData)),
      StatusCode::kInvalidArgument, "expected ',' or ')' in shape");
}

TEST(NpyMalformedTest, TrailingJunkAfterDict) {
  EXPECT_ERROR(ParseStatus(MakeNpy1(kGoodDict + " x", kGoodData)), StatusCode::kInvalidArgument,
               "trailing junk after the header dict");
}

TEST(NpyMalformedTest, NonIntegerShapeEntry) {
  for (const char* entry : {"2.0", "'2'", "x", "2e0", "0x2", "1_0", "True", "2j", "+2", "02"}) {
    SCOPED_TRACE(entry);
    EXPECT_ERROR(ParseStatus(MakeNpy1(std::string("{'descr': '<f8', 'fortran_order': False, "
                                                  "'shape': (") +
                                          entry + ",), }",
                                      kGoodData)),
                 StatusCode::kInvalidArgument, "shape entry");
  }
}

TEST(NpyMalformedTest, ShapeNotATuple) {
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, 'shape': (2), }", kGoodData)),
      StatusCode::kInvalidArgument, "not a tuple");
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, 'shape': [2], }", kGoodData)),
      StatusCode::kInvalidArgument, "shape must be a tuple, not a list");
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, 'shape': 2, }", kGoodData)),
      StatusCode::kInvalidArgument, "shape must be a tuple");
}

TEST(NpyMalformedTest, NegativeDimension) {
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, 'shape': (2, -1), }", "")),
      StatusCode::kInvalidArgument, "negative dimension -1");
}

TEST(NpyMalformedTest, DimensionBeyondInt64) {
  EXPECT_ERROR(ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, "
                                    "'shape': (9223372036854775808,), }",
                                    "")),
               StatusCode::kInvalidArgument, "does not fit in int64");
}

TEST(NpyMalformedTest, UnsupportedDtype) {
  for (const char* descr : {">f8", "<c16", "<f2", "|f8", ">i1", "<U3", "O", "<M8[ns]", ""}) {
    SCOPED_TRACE(descr);
    EXPECT_ERROR(ParseStatus(MakeNpy1(std::string("{'descr': '") + descr +
                                          "', 'fortran_order': False, 'shape': (2,), }",
                                      kGoodData)),
                 StatusCode::kUnimplemented, "unsupported dtype '" + std::string(descr) + "'");
  }
  EXPECT_ERROR(ParseStatus(MakeNpy1("{'descr': [('a', '<f8')], 'fortran_order': False, "
                                    "'shape': (2,), }",
                                    kGoodData)),
               StatusCode::kUnimplemented, "structured");
}

TEST(NpyMalformedTest, FortranOrderTrueIsUnsupported) {
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': True, 'shape': (2,), }", kGoodData)),
      StatusCode::kUnimplemented, "fortran_order True");
}

TEST(NpyMalformedTest, FortranOrderNotABool) {
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': 0, 'shape': (2,), }", kGoodData)),
      StatusCode::kInvalidArgument, "fortran_order must be True or False");
}

TEST(NpyMalformedTest, ShapeProductOverflowsInt64) {
  EXPECT_ERROR(ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, "
                                    "'shape': (4294967296, 4294967296), }",
                                    "")),
               StatusCode::kInvalidArgument, "overflows");
  // Itemsize alone tips it over.
  EXPECT_ERROR(ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, "
                                    "'shape': (2305843009213693952,), }",
                                    "")),
               StatusCode::kInvalidArgument, "overflows");
}

TEST(NpyMalformedTest, ShapeLargerThanDataCap) {
  EXPECT_ERROR(ParseStatus(MakeNpy1("{'descr': '|u1', 'fortran_order': False, "
                                    "'shape': (1099511627777,), }",
                                    "")),
               StatusCode::kInvalidArgument, "exceed the 2^40-byte limit");
}

TEST(NpyMalformedTest, ZeroDimensionDoesNotHideOverflow) {
  // Like NumPy's "array is too big": the nonzero dims must fit even when a zero makes it empty.
  EXPECT_ERROR(ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, "
                                    "'shape': (0, 4611686018427387904, 4611686018427387904), }",
                                    "")),
               StatusCode::kInvalidArgument, "overflows");
}

TEST(NpyMalformedTest, RankAboveMaximum) {
  std::string shape = "(";
  for (int i = 0; i < 65; ++i) shape += "1, ";
  shape += ")";
  EXPECT_ERROR(
      ParseStatus(MakeNpy1("{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }",
                           std::string(8, '\0'))),
      StatusCode::kInvalidArgument, "more than 64 dimensions");
}

TEST(NpyMalformedTest, TruncatedData) {
  std::string f = MakeNpy1(kGoodDict, kGoodData);
  f.pop_back();
  EXPECT_ERROR(ParseStatus(f), StatusCode::kOutOfRange,
               "truncated data: shape (2,) of <f8 needs 16 bytes of data but only 15");
}

TEST(NpyMalformedTest, TrailingBytesAfterData) {
  EXPECT_ERROR(ParseStatus(MakeNpy1(kGoodDict, kGoodData + "xyz")), StatusCode::kInvalidArgument,
               "3 trailing bytes after the data");
}

TEST(NpyMalformedTest, NonAsciiInHeader) {
  EXPECT_ERROR(ParseStatus(MakeNpy(3,
                                   "{'descr': '<f8\xc3\xa9', 'fortran_order': False, "
                                   "'shape': (2,), }",
                                   kGoodData)),
               StatusCode::kInvalidArgument, "non-ASCII");
}

// ------------------------------------------------------------------------------------------------
// NpyArray API

TEST(NpyArrayTest, AsChecksDtype) {
  StatusOr<NpyArray> a = NpyArray::FromF64({2}, std::vector<double>{1, 2});
  ASSERT_TRUE(a.ok());
  EXPECT_ERROR(a->As<float>().status(), StatusCode::kInvalidArgument, "dtype is <f8, not <f4");
}

TEST(NpyArrayTest, FromChecksCountAndShape) {
  std::vector<int32_t> three = {1, 2, 3};
  EXPECT_ERROR(NpyArray::From<int32_t>({2, 2}, three).status(), StatusCode::kInvalidArgument,
               "3 values for shape (2, 2) of 4 elements");
  EXPECT_ERROR(NpyArray::From<int32_t>({-3}, three).status(), StatusCode::kInvalidArgument,
               "negative dimension");
}

TEST(NpyArrayTest, SerializeRejectsInconsistentArray) {
  NpyArray a;
  a.dtype = NpyDtype::kI4;
  a.shape = {3};
  a.data.resize(11);
  EXPECT_ERROR(SerializeNpy(a).status(), StatusCode::kInvalidArgument,
               "data has 11 bytes but shape (3,) of <i4 needs 12");
  a.shape = std::vector<int64_t>(65, 1);
  EXPECT_ERROR(a.Validate(), StatusCode::kInvalidArgument, "rank 65 exceeds the maximum rank 64");
}

TEST(NpyArrayTest, DescrTable) {
  EXPECT_EQ(NpyDescr(NpyDtype::kI1), "|i1");
  EXPECT_EQ(NpyDescr(NpyDtype::kU1), "|u1");
  EXPECT_EQ(*NpyDtypeFromDescr("<i1"), NpyDtype::kI1);
  EXPECT_EQ(*NpyDtypeFromDescr("<u1"), NpyDtype::kU1);
  EXPECT_EQ(NpyItemSize(NpyDtype::kU8), 8);
  EXPECT_EQ(NpyShapeString(std::vector<int64_t>{}), "()");
  EXPECT_EQ(NpyShapeString(std::vector<int64_t>{3}), "(3,)");
  EXPECT_EQ(NpyShapeString(std::vector<int64_t>{3, 0}), "(3, 0)");
}

// ------------------------------------------------------------------------------------------------
// Files

class NpyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/npy_test.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    ASSERT_NE(mkdtemp(buf.data()), nullptr);
    dir_ = buf.data();
  }
  void TearDown() override {
    for (const std::string& name : List()) ::unlink((dir_ + "/" + name).c_str());
    ::rmdir(dir_.c_str());
  }
  std::vector<std::string> List() const {
    std::vector<std::string> names;
    DIR* d = opendir(dir_.c_str());
    if (d == nullptr) return names;
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
    return names;
  }
  std::string dir_;
};

TEST_F(NpyFileTest, WriteThenReadLeavesNoTempFile) {
  StatusOr<NpyArray> a = NpyArray::FromF64({2, 3}, std::vector<double>{-1, -0.5, 0, 0.5, 1, 1.5});
  ASSERT_TRUE(a.ok());
  const std::string path = dir_ + "/A.npy";
  Status w = WriteNpy(path, *a);
  ASSERT_TRUE(w.ok()) << w.ToString();
  EXPECT_EQ(List(), std::vector<std::string>{"A.npy"});
  std::ifstream in(path, std::ios::binary);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(contents, kF8_2x3);
  StatusOr<NpyArray> back = ReadNpy(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, *a);

  // Overwriting replaces the file atomically, again leaving only it.
  StatusOr<NpyArray> b = NpyArray::From<uint8_t>({}, std::vector<uint8_t>{200});
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(WriteNpy(path, *b).ok());
  EXPECT_EQ(List(), std::vector<std::string>{"A.npy"});
  StatusOr<NpyArray> back2 = ReadNpy(path);
  ASSERT_TRUE(back2.ok());
  EXPECT_EQ(*back2, *b);
}

TEST_F(NpyFileTest, WriteIntoMissingDirectoryFailsAndLeavesNothing) {
  StatusOr<NpyArray> a = NpyArray::FromF64({1}, std::vector<double>{1});
  ASSERT_TRUE(a.ok());
  const std::string path = dir_ + "/no_such_dir/A.npy";
  Status s = WriteNpy(path, *a);
  EXPECT_ERROR(s, StatusCode::kNotFound, path + ": cannot create temporary file");
  EXPECT_TRUE(List().empty());
}

TEST_F(NpyFileTest, FailedRenameRemovesTempFile) {
  // The target is an existing non-empty directory: rename(2) fails after the temp file is written.
  StatusOr<NpyArray> a = NpyArray::FromF64({1}, std::vector<double>{1});
  ASSERT_TRUE(a.ok());
  const std::string path = dir_ + "/target";
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  std::ofstream(path + "/keep") << "x";
  Status s = WriteNpy(path, *a);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(path + ": cannot rename"));
  EXPECT_EQ(List(), std::vector<std::string>{"target"});
  ::unlink((path + "/keep").c_str());
  ::rmdir(path.c_str());
}

TEST_F(NpyFileTest, WriteInvalidArrayCreatesNothing) {
  NpyArray bad;
  bad.shape = {2};
  Status s = WriteNpy(dir_ + "/bad.npy", bad);
  EXPECT_ERROR(s, StatusCode::kInvalidArgument, "bad.npy: data has 0 bytes");
  EXPECT_TRUE(List().empty());
}

TEST_F(NpyFileTest, ReadMissingFileIsNotFoundNamingPath) {
  const std::string path = dir_ + "/missing.npy";
  EXPECT_ERROR(ReadNpy(path).status(), StatusCode::kNotFound, path + ": no such file");
}

TEST_F(NpyFileTest, ReadErrorsArePrefixedWithPath) {
  const std::string path = dir_ + "/trunc.npy";
  std::ofstream(path, std::ios::binary) << kF8_2x3.substr(0, kF8_2x3.size() - 1);
  EXPECT_ERROR(ReadNpy(path).status(), StatusCode::kOutOfRange, path + ": truncated data");
  std::ofstream(path, std::ios::binary) << kF8_2x3 << "!";
  EXPECT_ERROR(ReadNpy(path).status(), StatusCode::kInvalidArgument,
               path + ": 1 trailing bytes after the data");
  std::ofstream(path, std::ios::binary) << "";
  EXPECT_ERROR(ReadNpy(path).status(), StatusCode::kInvalidArgument, path + ": bad magic");
}

TEST_F(NpyFileTest, ReadHugeClaimedShapeFailsBeforeAllocating) {
  // 2^40 bytes of data claimed (exactly the cap) by a 64-byte file: the size check against the
  // file comes first, so nothing is allocated (under ASan a 1 TiB allocation would abort).
  const std::string path = dir_ + "/huge.npy";
  std::ofstream(path, std::ios::binary)
      << MakeNpy1("{'descr': '|u1', 'fortran_order': False, 'shape': (1099511627776,), }");
  EXPECT_ERROR(ReadNpy(path).status(), StatusCode::kOutOfRange,
               path + ": truncated data: shape (1099511627776,) of |u1 needs 1099511627776 bytes");
}

TEST_F(NpyFileTest, ReadDirectoryFails) {
  EXPECT_ERROR(ReadNpy(dir_).status(), StatusCode::kFailedPrecondition, "is a directory");
}

TEST_F(NpyFileTest, ReadEveryReferenceFile) {
  for (const std::string* ref : {&kF8_2x3, &kF4_1x2, &kI1_4, &kU1_0d, &kI4_3x0, &kI8_2, &kU8_2x1x1,
                                 &kF8_Aligned, &kF8_BigFirstAxis}) {
    const std::string path = dir_ + "/ref.npy";
    std::ofstream(path, std::ios::binary) << *ref;
    StatusOr<NpyArray> a = ReadNpy(path);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    StatusOr<NpyArray> b = ParseNpy(AsBytes(*ref));
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(*a, *b);
  }
}

TEST_F(NpyFileTest, StreamWriterWritesExactlyWhatWriteNpyWrites) {
  const std::vector<double> values = {1.5, -0.0, 3e-300, 7.0, 1e300, -2.25};
  StatusOr<NpyArray> a = NpyArray::FromF64({3, 2}, values);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(WriteNpy(dir_ + "/whole.npy", *a).ok());
  StatusOr<NpyF64StreamWriter> w = NpyF64StreamWriter::Create(dir_ + "/stream.npy", {3, 2});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (int row = 0; row < 3; ++row) {
    ASSERT_TRUE(w->Append(std::span<const double>(values).subspan(2 * row, 2)).ok());
  }
  ASSERT_TRUE(w->Finish().ok());
  StatusOr<std::vector<uint8_t>> whole = ReadFileBytes(dir_ + "/whole.npy");
  StatusOr<std::vector<uint8_t>> stream = ReadFileBytes(dir_ + "/stream.npy");
  ASSERT_TRUE(whole.ok() && stream.ok());
  EXPECT_EQ(*whole, *stream);
}

TEST_F(NpyFileTest, StreamWriterRefusesWrongCountsAndExistingFilesAndCleansUp) {
  {
    StatusOr<NpyF64StreamWriter> w = NpyF64StreamWriter::Create(dir_ + "/short.npy", {2, 2});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->Append(std::vector<double>{1, 2, 3}).ok());
    EXPECT_ERROR(w->Append(std::vector<double>{4, 5}), StatusCode::kOutOfRange, "more values");
    EXPECT_ERROR(w->Finish(), StatusCode::kFailedPrecondition, "3 of 4 values written");
  }
  {
    StatusOr<NpyF64StreamWriter> w = NpyF64StreamWriter::Create(dir_ + "/dropped.npy", {2});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->Append(std::vector<double>{1}).ok());
  }  // destroyed before Finish(): the file goes
  EXPECT_TRUE(List().empty()) << List().front();
  std::ofstream(dir_ + "/exists.npy") << "x";
  EXPECT_ERROR(NpyF64StreamWriter::Create(dir_ + "/exists.npy", {1}).status(),
               StatusCode::kUnavailable, "cannot create");
}

}  // namespace
}  // namespace dashi
