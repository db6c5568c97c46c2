#include "analysis/names/kernel_name_normalize.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <utility>

#include "analysis/names/kernel_name_tokens.h"

namespace kscope::analysis {

namespace {

using Kind = TokenKind;

// Lambda arguments are normalized like the name around them; past this depth (only crafted
// input nests lambda types this deep) a lambda is read as plain punctuation.
constexpr int kMaxLambdaDepth = 8;

std::string Normalize(std::string_view s, NameForm form, int depth);

// `(int)8`, `(unsigned long)3`, `(bool)1`: nsys writes the type of a literal template
// argument, ncu mostly not, the demangler as a suffix (dropped when tokenizing).
void DropLiteralCasts(std::vector<Token>& t) {
  std::vector<Token> out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (IsPunct(t[i], "(")) {
      size_t j = i + 1;
      while (j < t.size() && ((t[j].kind == Kind::kWord && !t[j].lambda) || IsPunct(t[j], "::") || IsPunct(t[j], "*") ||
                              IsPunct(t[j], "&"))) {
        ++j;
      }
      if (j > i + 1 && j + 1 < t.size() && IsPunct(t[j], ")") && t[j + 1].kind == Kind::kNumber) {
        i = j;
        continue;
      }
    }
    out.push_back(std::move(t[i]));
  }
  t = std::move(out);
}

bool IsBuiltinType(std::string_view w) {
  return w == "bool" || w == "int" || w == "long" || w == "float" || w == "double" || w == "char" || w == "short";
}

// nsys and ncu write the return type of a function a lambda belongs to (`void at::f<...>(...)
// ::[lambda...]`, `bool cuda::histogram<...>(...)::[lambda...]`), the demangler not; kernels
// themselves return void. A builtin type goes only before a qualified or template name
// (`bool ns::f`, not `unsigned long ns::f` nor `unsigned int`).
void DropReturnTypes(std::vector<Token>& t) {
  std::vector<Token> out;
  for (size_t i = 0; i < t.size(); ++i) {
    const bool before_word = i + 1 < t.size() && t[i + 1].kind == Kind::kWord;
    if (t[i].kind == Kind::kWord && t[i].text == "void" && before_word) continue;
    const bool before_name = before_word && i + 2 < t.size() && (IsPunct(t[i + 2], "::") || IsPunct(t[i + 2], "<"));
    const bool after_word = !out.empty() && out.back().kind == Kind::kWord;
    if (t[i].kind == Kind::kWord && IsBuiltinType(t[i].text) && before_name && !after_word) continue;
    out.push_back(std::move(t[i]));
  }
  t = std::move(out);
}

// ncu drops some namespaces (at::native:: becomes at::, at::cuda::detail:: becomes cuda::),
// so the key drops them all. A function that a lambda belongs to stays: its name is followed
// by its parameters, not by "::".
void DropQualifiers(std::vector<Token>& t) {
  std::vector<Token> out;
  for (size_t i = 0; i < t.size(); ++i) {
    const bool scope = t[i].kind == Kind::kWord && !t[i].lambda && !t[i].text.starts_with("operator");
    if (scope && i + 1 < t.size() && IsPunct(t[i + 1], "::")) {
      ++i;
      continue;
    }
    const bool leading = out.empty() || IsPunct(out.back(), "<") || IsPunct(out.back(), ",");
    if (IsPunct(t[i], "::") && leading) continue;
    out.push_back(std::move(t[i]));
  }
  t = std::move(out);
}

// nsys and ncu name parameters of template type T1, T2...; the demangler writes the type.
void DropParameters(std::vector<Token>& t) {
  std::vector<Token> out;
  int angle = 0, paren = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (IsPunct(t[i], "(") && !out.empty() && (out.back().kind == Kind::kWord || IsPunct(out.back(), ">"))) {
      const bool keep = angle == 0 && paren == 0 && out.back().kind == Kind::kWord && !out.back().lambda;
      if (!keep) {
        int level = 0;
        for (; i < t.size(); ++i) {
          if (IsPunct(t[i], "(")) ++level;
          if (IsPunct(t[i], ")") && --level == 0) break;
        }
        continue;
      }
    }
    if (IsPunct(t[i], "<")) ++angle;
    if (IsPunct(t[i], ">") && angle > 0) --angle;
    if (IsPunct(t[i], "(")) ++paren;
    if (IsPunct(t[i], ")") && paren > 0) --paren;
    out.push_back(std::move(t[i]));
  }
  t = std::move(out);
}

std::string Render(const std::vector<Token>& tokens, NameForm form) {
  std::string out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i > 0 && WordLike(tokens[i - 1]) && WordLike(tokens[i])) out += ' ';
    out += tokens[i].text;
    if (form == NameForm::kTidy && IsPunct(tokens[i], ",")) out += ' ';
  }
  return out;
}

std::vector<Token> NormalizedTokens(std::string_view s, NameForm form, int depth) {
  auto t = TokenizeName(s, [form, depth](std::string_view args) -> std::optional<std::string> {
    if (depth + 1 >= kMaxLambdaDepth) return std::nullopt;
    return Normalize(args, form, depth + 1);
  });
  DropLiteralCasts(t);
  DropReturnTypes(t);
  if (form == NameForm::kKey) {
    DropQualifiers(t);
    DropParameters(t);
  }
  return t;
}

std::string Normalize(std::string_view s, NameForm form, int depth) {
  return Render(NormalizedTokens(s, form, depth), form);
}

}  // namespace

std::string DemangleName(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(std::string(name).c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

std::string NormalizeName(std::string_view demangled, NameForm form) { return Normalize(demangled, form, 0); }

std::string QualifiedBaseName(std::string_view demangled) {
  const auto t = NormalizedTokens(demangled, NameForm::kTidy, 0);
  size_t end = 0;
  while (end < t.size() && !IsPunct(t[end], "<") && !IsPunct(t[end], "(")) ++end;
  size_t start = 0;  // after the return type
  for (size_t k = 1; k < end; ++k) {
    if (WordLike(t[k]) && (WordLike(t[k - 1]) || IsPunct(t[k - 1], "*") || IsPunct(t[k - 1], "&"))) start = k;
  }
  return Render({t.begin() + static_cast<std::ptrdiff_t>(start), t.begin() + static_cast<std::ptrdiff_t>(end)},
                NameForm::kTidy);
}

std::string_view KeyHead(std::string_view key) { return key.substr(0, key.find_first_of("<(")); }

std::vector<std::string_view> KeyTemplateArgs(std::string_view key) {
  std::vector<std::string_view> args;
  const size_t open = KeyHead(key).size();
  if (open >= key.size() || key[open] != '<') return args;
  int level = 0;
  size_t start = open + 1;
  for (size_t i = open; i < key.size(); ++i) {
    const char c = key[i];
    if (c == '<' || c == '(' || c == '{' || c == '[') ++level;
    if (c == ',' && level == 1) {
      args.push_back(key.substr(start, i - start));
      start = i + 1;
    }
    if ((c == '>' || c == ')' || c == '}' || c == ']') && --level == 0) {
      if (i > start) args.push_back(key.substr(start, i - start));
      break;
    }
  }
  return args;
}

}  // namespace kscope::analysis
