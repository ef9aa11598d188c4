// Linked only into sanitizer builds (CUDNNLINT_SANITIZE): the defaults every run of them uses,
// so that the tests need no environment.
//  - handle_segv=0, allow_user_segv_handler=1: a crash or stack overflow inside clang is caught
//    by clang's CrashRecoveryContext and becomes a per-file diagnostic, as in a normal build;
//  - detect_leaks=0: clang and LLVM keep their static state alive until exit, and a translation
//    unit abandoned after a crash is leaked on purpose;
//  - UBSan stops at the first report, with a stack trace.
extern "C" const char* __asan_default_options() {
  return "handle_segv=0:allow_user_segv_handler=1:detect_leaks=0:detect_stack_use_after_return=0";
}
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }
