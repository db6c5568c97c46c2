// The words, numbers and punctuation of a demangled kernel name, read the same whichever
// tool wrote it: lambdas as one word in the demangler's spelling {lambda(ARGS)#N}, the
// anonymous namespace as one word "(anonymous namespace)", "operator()" as one word,
// integers without the demangler's suffixes (3ul), true/false as 1/0, const and volatile
// left out. kernel_name_normalize.cc works on these.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kscope::analysis {

enum class TokenKind { kWord, kNumber, kPunct };

struct Token {
  TokenKind kind;
  std::string text;
  bool lambda = false;  // a whole {lambda(ARGS)#N}, kept as one word
};

inline bool WordLike(const Token& t) { return t.kind != TokenKind::kPunct; }
inline bool IsPunct(const Token& t, std::string_view p) { return t.kind == TokenKind::kPunct && t.text == p; }

// Spells a lambda's parameter list; nullopt reads the lambda as plain punctuation instead
// (how the caller bounds the nesting of lambda types).
using LambdaArgs = std::function<std::optional<std::string>(std::string_view)>;

std::vector<Token> TokenizeName(std::string_view s, const LambdaArgs& lambda_args);

}  // namespace kscope::analysis
