// The wheel's binary (CUDNNLINT_PORTABLE) runs on any glibc from 2.35 (Ubuntu 22.04) up. Built on
// Debian 12 (glibc 2.36), static libstdc++ (std::random_device) and LLVM's Support library
// (sys::Process::GetRandomNumber) call arc4random, which glibc added in 2.36: that one symbol would
// raise the floor to 2.36. The link wraps it (-Wl,--wrap=arc4random) onto this, which does what
// glibc's does: getrandom(2) (glibc 2.25), else /dev/urandom, else the process ends, as glibc's
// arc4random ends it ("cannot get entropy").
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

namespace {

bool from_urandom(std::uint32_t& value) {
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t got;
  do {
    got = ::read(fd, &value, sizeof value);
  } while (got < 0 && errno == EINTR);
  ::close(fd);
  return got == static_cast<ssize_t>(sizeof value);
}

}  // namespace

extern "C" std::uint32_t __wrap_arc4random(void) {
  std::uint32_t value = 0;
  for (;;) {
    const ssize_t got = ::getrandom(&value, sizeof value, 0);
    if (got == static_cast<ssize_t>(sizeof value)) return value;
    if (got < 0 && errno == EINTR) continue;
    break;  // ENOSYS (a kernel before 3.17) or a short read
  }
  if (from_urandom(value)) return value;
  std::fputs("cudnnlint: cannot get entropy (getrandom and /dev/urandom both failed)\n", stderr);
  std::abort();
}
