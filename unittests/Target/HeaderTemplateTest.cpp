//===- HeaderTemplateTest.cpp - Rendering header templates ----------------===//
//
// Part of tilec. Checks the rules HeaderTemplate renders the generated
// header's templates by: placeholders, prefixes, blocks, the templates' own
// comments and conditionals on flags.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/HeaderTemplate.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace tilec;

namespace {

std::string render(const HeaderTemplate &header, StringRef text) {
  std::string result;
  raw_string_ostream os(result);
  header.render(text, os);
  return result;
}

TEST(HeaderTemplateTest, ReplacesWholeIdentifiers) {
  HeaderTemplate header;
  header.set("TILEC_X", "42").set("x7f", "no");
  // In code, comments and string literals alike; not inside other
  // identifiers or numbers.
  EXPECT_EQ(render(header, "int a[TILEC_X]; /* TILEC_X */ \"TILEC_X\"\n"),
            "int a[42]; /* 42 */ \"42\"\n");
  EXPECT_EQ(render(header, "TILEC_XY MY_TILEC_X TILEC_X_ 0x7f x7f\n"),
            "TILEC_XY MY_TILEC_X TILEC_X_ 0x7f no\n");
  // A last line without a newline keeps none.
  EXPECT_EQ(render(header, "(TILEC_X)"), "(42)");
}

TEST(HeaderTemplateTest, ValuesAreNotReadAgain) {
  HeaderTemplate header;
  header.set("TILEC_A", "TILEC_B").set("TILEC_B", "b").setPrefix("p", "q");
  EXPECT_EQ(render(header, "TILEC_A TILEC_B\n"), "TILEC_B b\n");
  header.set("TILEC_A", "p_load");
  EXPECT_EQ(render(header, "TILEC_A p_load\n"), "p_load q_load\n");
}

TEST(HeaderTemplateTest, PrefixesStartIdentifiers) {
  HeaderTemplate header;
  header.setPrefix("tilec_prefix", "gemm")
      .setPrefix("TILEC_PREFIX", "GEMM")
      .setPrefix("TILEC_PREFIX_LONG", "LONGER");
  EXPECT_EQ(render(header, "tilec_prefix_load(); tilec_prefix.h\n"),
            "gemm_load(); gemm.h\n");
  EXPECT_EQ(render(header, "TILEC_PREFIX_ARCH TILEC_PREFIX_LONG_X\n"),
            "GEMM_ARCH LONGER_X\n");
  // Only before `_`, and only at the start.
  EXPECT_EQ(render(header, "tilec_prefixes my_tilec_prefix_x\n"),
            "tilec_prefixes my_tilec_prefix_x\n");
}

TEST(HeaderTemplateTest, BlocksReplaceTheirLine) {
  HeaderTemplate header;
  header.set("TILEC_BLOCK", "  one;\n  two;\n").set("TILEC_EMPTY", "");
  EXPECT_EQ(render(header, "{\n  TILEC_BLOCK\nTILEC_EMPTY\n}\n"),
            "{\n  one;\n  two;\n}\n");
  // With anything else on the line, the placeholder is a value.
  EXPECT_EQ(render(header, "x TILEC_EMPTY\n"), "x \n");
}

TEST(HeaderTemplateTest, DropsTheTemplatesComments) {
  HeaderTemplate header;
  EXPECT_EQ(render(header, "// About the template.\na; // kept\n  // too\n"),
            "a; // kept\n");
}

TEST(HeaderTemplateTest, FlagsKeepOrDropLines) {
  HeaderTemplate header;
  header.setFlag("TILEC_ON", true).setFlag("TILEC_OFF", false);
  EXPECT_EQ(render(header, "#if TILEC_ON\na\n#else\nb\n#endif\n"), "a\n");
  EXPECT_EQ(render(header, "#if TILEC_OFF\na\n#else\nb\n#endif\n"), "b\n");
  EXPECT_EQ(render(header, "#if !TILEC_OFF\na\n#endif\n"), "a\n");
  EXPECT_EQ(render(header, "  #  if ! TILEC_ON\na\n#endif\n"), "");
  // Nested in each other.
  EXPECT_EQ(render(header, "#if TILEC_ON\n#if TILEC_OFF\na\n#else\nb\n"
                           "#endif\n#endif\n"),
            "b\n");
  EXPECT_EQ(render(header, "#if TILEC_OFF\n#if TILEC_ON\na\n#else\nb\n"
                           "#endif\n#else\nc\n#endif\n"),
            "c\n");
}

TEST(HeaderTemplateTest, OtherDirectivesAreText) {
  HeaderTemplate header;
  header.setFlag("TILEC_ON", true).setFlag("TILEC_OFF", false);
  // The C conditionals stay, and their #else and #endif are theirs.
  EXPECT_EQ(render(header, "#if TILEC_ON\n#ifdef X\na\n#else\nb\n#endif\n"
                           "#endif\n"),
            "#ifdef X\na\n#else\nb\n#endif\n");
  EXPECT_EQ(render(header, "#if TILEC_OFF\n#if defined(X)\na\n#else\nb\n"
                           "#endif\n#else\nc\n#endif\n"),
            "c\n");
  EXPECT_EQ(render(header, "#ifndef X\n#if TILEC_OFF\na\n#endif\n#elif Y\n"
                           "#endif\n"),
            "#ifndef X\n#elif Y\n#endif\n");
  // Only `#if` tests flags.
  EXPECT_EQ(render(header, "#ifndef TILEC_OTHER\n#endif\n"),
            "#ifndef TILEC_OTHER\n#endif\n");
}

TEST(HeaderTemplateDeathTest, MistakesInTemplatesAreFatal) {
  HeaderTemplate header;
  header.setFlag("TILEC_ON", true);
  EXPECT_DEATH(render(header, "#if TILEC_UNSET\n#endif\n"),
               "no value for flag TILEC_UNSET");
  EXPECT_DEATH(render(header, "#if TILEC_ON && X\n#endif\n"), "one flag");
  EXPECT_DEATH(render(header, "#if TILEC_ON\n"), "left open");
  EXPECT_DEATH(render(header, "#endif\n"), "without #if");
  EXPECT_DEATH(render(header, "#if TILEC_ON\n#elif X\n#endif\n"),
               "after a template conditional");
}

} // namespace
