// One spelling for a kernel name that nsys, ncu and the C++ demangler each write their own
// way. nsys demangles `at::native::f<(int)8, std::array<char *, (unsigned long)3>>(int, T2)`,
// ncu `at::f<8, std::array<char *, 3>>(int, T2)` (fewer namespaces, no literal casts) and
// abi::__cxa_demangle `at::native::f<8, std::array<char*, 3ul> >(int, Functor)`; lambdas are
// `[lambda(int) (instance 1)]` in the first two and `{lambda(int)#1}` in the third, the
// anonymous namespace `<unnamed>` or `(anonymous namespace)`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kscope::analysis {

// abi::__cxa_demangle for names that start with "_Z"; anything else (and what the demangler
// rejects) comes back as it is.
std::string DemangleName(std::string_view name);

enum class NameForm {
  kTidy,  // lambdas as {lambda(ARGS)#N}, (anonymous namespace), literal casts and integer
          // suffixes dropped, bools as 0/1, const/volatile and `void` return types dropped;
          // namespaces and parameter lists kept
  kKey,   // kTidy, and namespace qualifiers and parameter lists dropped (the parameters of
          // a function that is not a template stay: they tell its overloads apart)
};

// A demangled name in one of the forms above. Only words and numbers next to each other are
// separated, by one space ("unsigned int"); kTidy puts a space after each comma too.
std::string NormalizeName(std::string_view demangled, NameForm form);

// The qualified name without return type, template arguments and parameters, from a
// demangled name (kTidy spelling: `<unnamed>` becomes `(anonymous namespace)`).
std::string QualifiedBaseName(std::string_view demangled);

// The text before the first top-level '<' or '(' of a kKey name, and the top-level
// template arguments after it (empty when it has none).
std::string_view KeyHead(std::string_view key);
std::vector<std::string_view> KeyTemplateArgs(std::string_view key);

}  // namespace kscope::analysis
