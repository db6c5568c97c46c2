// Errors as values: a fatal problem travels up to the CLI, which prints it as one line.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace kscope {

// The kinds of error a caller acts on; a caller tells them apart by this value, never by the
// text. Every other error is kOther: it travels up to the CLI and is printed.
enum class ErrorKind {
  kOther,
  kUnreadFormatVersion,  // a file in a version of its format kscope does not read (an .ncu-rep of another ncu)
  kNoMatchingRun,        // a selection of runs (by tag, model, GPU...) that matches none of the store's
};

// What went wrong, where, and how to fix it. Printed as
//   kscope: error: <where>: <what>; <fix>
struct Error {
  std::string where;  // usually a file path; may be empty
  std::string what;   // what is wrong, in the user's terms
  std::string fix;    // what the user can do about it; may be empty
  ErrorKind kind = ErrorKind::kOther;

  [[nodiscard]] std::string Line() const {
    std::string line = "kscope: error: ";
    if (!where.empty()) line += where + ": ";
    line += what;
    if (!fix.empty()) line += "; " + fix;
    for (char& c : line) {
      if (c == '\n' || c == '\r') c = ' ';  // text from a file or a path must not break the line
    }
    return line;
  }
};

// A value or an Error (std::expected is C++23; this is the small part of it we use).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  [[nodiscard]] const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result of an operation that returns nothing.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)
  static Status Ok() { return {}; }

  [[nodiscard]] bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  [[nodiscard]] const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace kscope

// Early return for Status-returning expressions.
#define KSCOPE_RETURN_IF_ERROR(expr)                      \
  do {                                                    \
    if (auto _st = (expr); !_st.ok()) return _st.error(); \
  } while (false)
