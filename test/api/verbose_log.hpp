// Capturing and splitting the verbose log of a forked child, shared by the
// verbose tests. Test code only: nothing here comes from the library.
#ifndef KESTREL_TEST_API_VERBOSE_LOG_HPP
#define KESTREL_TEST_API_VERBOSE_LOG_HPP

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/kt_test.hpp"

namespace vlog {

// Runs `body` in a child with the given environment and returns its stdout;
// the child must exit cleanly.
inline std::string run_child(kt::tally_t &tally, const std::map<std::string, std::string> &env,
        const std::function<void()> &body) {
    int fd[2];
    if (pipe(fd) != 0) return "";
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        unsetenv("ONEDNN_VERBOSE");
        unsetenv("DNNL_VERBOSE");
        unsetenv("ONEDNN_VERBOSE_TIMESTAMP");
        for (const auto &kv : env) setenv(kv.first.c_str(), kv.second.c_str(), 1);
        dup2(fd[1], 1);
        close(fd[1]);
        body();
        std::fflush(stdout);
        _exit(0);
    }
    close(fd[1]);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd[0], buf, sizeof(buf))) > 0) out.append(buf, (size_t)n);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    tally.check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child scenario exits cleanly");
    return out;
}

inline std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> v;
    size_t b = 0;
    for (;;) {
        size_t e = s.find(sep, b);
        v.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
        if (e == std::string::npos) break;
        b = e + 1;
    }
    return v;
}

inline std::vector<std::string> lines_of(const std::string &log) {
    std::vector<std::string> v;
    for (auto &l : split(log, '\n'))
        if (!l.empty()) v.push_back(l);
    return v;
}

inline bool starts(const std::string &s, const std::string &p) { return s.compare(0, p.size(), p) == 0; }

inline bool is_number(const std::string &s) {
    if (s.empty()) return false;
    char *end = nullptr;
    std::strtod(s.c_str(), &end);
    return end && *end == '\0';
}

// A primitive line split into its fields, without marker, version and
// (when on) timestamp.
struct prim_line_t {
    std::string op, engine, kind, impl, prop, mds, attrs, aux, problem, time;
};

inline bool parse_prim(const std::string &line, bool stamped, prim_line_t &p) {
    auto f = split(line, ',');
    const size_t base = stamped ? 3 : 2;
    if (f.size() != base + 11 || f[0] != "onednn_verbose" || f[1] != "v1" || f[base] != "primitive") return false;
    if (stamped && !is_number(f[2])) return false;
    p = {f[base + 1], f[base + 2], f[base + 3], f[base + 4], f[base + 5], f[base + 6], f[base + 7], f[base + 8],
            f[base + 9], f[base + 10]};
    return true;
}

} // namespace vlog

#endif
