// A small program the process tests run for real: it prints, exits, crashes, ignores SIGTERM
// or starts a child, as its first argument says.
//   fake_workload lines N        print N lines, then exit 0
//   fake_workload exit CODE      exit with CODE
//   fake_workload crash          die of SIGSEGV
//   fake_workload tree PIDFILE   start a child that sleeps, write "parent child" pids, sleep
//   fake_workload stubborn       ignore SIGTERM, sleep
//   fake_workload env NAME       print NAME's value
//   fake_workload cr             print progress redrawn with '\r', then a line
//   fake_workload stall NAME     print what ncu prints when one launch is profiled and a second one
//                                starts (NAME), then nothing: a replay that waits for a peer
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string mode = argv[1];
  if (mode == "lines" && argc > 2) {
    for (int i = 0; i < std::atoi(argv[2]); ++i) std::printf("line %d\n", i);
    std::fflush(stdout);
    std::fprintf(stderr, "to stderr\n");
    return 0;
  }
  if (mode == "exit" && argc > 2) return std::atoi(argv[2]);
  if (mode == "crash") {
    raise(SIGSEGV);
    return 1;
  }
  if (mode == "tree" && argc > 2) {
    const pid_t child = fork();
    if (child == 0) {
      sleep(60);
      return 0;
    }
    if (FILE* f = std::fopen(argv[2], "w")) {
      std::fprintf(f, "%d %d\n", static_cast<int>(getpid()), static_cast<int>(child));
      std::fclose(f);
    }
    std::printf("started\n");
    std::fflush(stdout);
    sleep(60);
    return 0;
  }
  if (mode == "stubborn") {
    signal(SIGTERM, SIG_IGN);
    std::printf("ignoring SIGTERM\n");
    std::fflush(stdout);
    sleep(60);
    return 0;
  }
  if (mode == "env" && argc > 2) {
    const char* v = std::getenv(argv[2]);
    std::printf("%s\n", v == nullptr ? "(unset)" : v);
    return 0;
  }
  if (mode == "stall" && argc > 2) {
    std::printf("==PROF== Connected to process %d\n", static_cast<int>(getpid()));
    std::printf("==PROF== Profiling \"first_kernel\" - 0: 0%%....50%%....100%% - 11 passes\n");
    std::printf("==PROF== Profiling \"%s\" - 1: 0%%...", argv[2]);
    std::fflush(stdout);
    sleep(60);
    return 0;
  }
  if (mode == "cr") {
    std::printf("[1/1] [0%%   ]\r[1/1] [50%%  ]\r[1/1] [100%%]\nGenerated:\n    /tmp/x.nsys-rep\n");
    return 0;
  }
  return 2;
}
