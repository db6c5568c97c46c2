#include "analysis/names/kernel_name_tokens.h"

#include <utility>

namespace kscope::analysis {

namespace {

using Kind = TokenKind;

bool IsWordStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsWordChar(char c) { return IsWordStart(c) || IsDigit(c); }

// The index of the ')' that closes the '(' at `open`, or npos.
size_t ClosingParen(std::string_view s, size_t open) {
  int level = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++level;
    if (s[i] == ')' && --level == 0) return i;
  }
  return std::string_view::npos;
}

// Reads digits at s[i...]; returns where they end (i itself when there are none).
size_t Digits(std::string_view s, size_t i) {
  while (i < s.size() && IsDigit(s[i])) ++i;
  return i;
}

// nsys and ncu write `[lambda(ARGS) (instance N)]`, the demangler `{lambda(ARGS)#N}`. On a
// match, `token` is the lambda in the demangler's spelling and the result is its end.
size_t ReadLambda(std::string_view s, size_t i, const LambdaArgs& normalize, Token& token) {
  const bool bracket = s.substr(i).starts_with("[lambda(");
  if (!bracket && !s.substr(i).starts_with("{lambda(")) return i;
  const size_t open = i + 7;
  const size_t close = ClosingParen(s, open);
  if (close == std::string_view::npos) return i;
  const std::string_view rest = s.substr(close + 1);
  const std::string_view intro = bracket ? " (instance " : "#";
  if (!rest.starts_with(intro)) return i;
  const size_t digits_end = Digits(rest, intro.size());
  const std::string_view outro = bracket ? ")]" : "}";
  if (digits_end == intro.size() || !rest.substr(digits_end).starts_with(outro)) return i;
  const auto args = normalize(s.substr(open + 1, close - open - 1));
  if (!args) return i;
  token =
      Token{Kind::kWord,
            "{lambda(" + *args + ")#" + std::string(rest.substr(intro.size(), digits_end - intro.size())) + "}", true};
  return close + 1 + digits_end + outro.size();
}

// "operator" and the operator after it, as one word: "operator()", "operator<<".
size_t ReadOperator(std::string_view s, size_t i, std::string& word) {
  size_t j = i;
  while (j < s.size() && s[j] == ' ') ++j;
  if (s.substr(j).starts_with("()") || s.substr(j).starts_with("[]")) {
    word += s.substr(j, 2);
    return j + 2;
  }
  constexpr std::string_view kSymbols = "+-*/%^&|~!=<>,";
  size_t k = j;
  while (k < s.size() && k - j < 3 && kSymbols.find(s[k]) != std::string_view::npos) ++k;
  word += s.substr(j, k - j);
  return k == j ? i : k;
}

}  // namespace

std::vector<Token> TokenizeName(std::string_view s, const LambdaArgs& lambda_args) {
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    Token lambda;
    if (c == ' ' || c == '\t' || c == '\n') {
      ++i;
    } else if (s.substr(i).starts_with(kAnonymous) || s.substr(i).starts_with("<unnamed>")) {
      out.push_back({Kind::kWord, std::string(kAnonymous)});
      i += s[i] == '(' ? kAnonymous.size() : std::string_view("<unnamed>").size();
    } else if (const size_t end = ReadLambda(s, i, lambda_args, lambda); end != i) {
      out.push_back(std::move(lambda));
      i = end;
    } else if (IsWordStart(c)) {
      size_t j = i;
      while (j < s.size() && IsWordChar(s[j])) ++j;
      std::string word(s.substr(i, j - i));
      if (word == "operator") j = ReadOperator(s, j, word);
      i = j;
      if (word == "const" || word == "volatile") continue;
      if (word == "true" || word == "false") {
        out.push_back({Kind::kNumber, word == "true" ? "1" : "0"});
      } else {
        out.push_back({Kind::kWord, std::move(word)});
      }
    } else if (IsDigit(c) || (c == '-' && i + 1 < s.size() && IsDigit(s[i + 1]) &&
                              (out.empty() || out.back().kind == Kind::kPunct))) {
      size_t j = i + 1;
      while (j < s.size() && IsWordChar(s[j])) ++j;
      std::string text(s.substr(i, j - i));
      const size_t digits_end = Digits(text, c == '-' ? 1 : 0);
      const bool suffix_only = text.find_first_not_of("uUlL", digits_end) == std::string::npos;
      if (suffix_only) text.resize(digits_end);  // 3ul, 2u: the demangler's integer suffixes
      out.push_back({suffix_only ? Kind::kNumber : Kind::kWord, std::move(text)});
      i = j;
    } else if (s.substr(i).starts_with("::")) {
      out.push_back({Kind::kPunct, "::"});
      i += 2;
    } else {
      out.push_back({Kind::kPunct, std::string(1, c)});
      ++i;
    }
  }
  return out;
}

// `(int)8`, `(unsigned long)3`, `(bool)1`: nsys writes the type of a literal template

}  // namespace kscope::analysis
