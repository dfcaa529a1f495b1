// Replays fuzz inputs through a target without libFuzzer: the regression
// test of the committed corpus, built by any compiler in every build.
//
// usage: replay_NAME [FILE-OR-DIR...]; with no argument, the target's own
// corpus $srcdir/test/fuzz/corpus/NAME. Prints one line per input and the
// closing "N passed, 0 failed" line test/summary.sh counts; an input that
// breaks the library aborts the program, which fails the test.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef KFUZZ_NAME
#error "KFUZZ_NAME names the target's corpus folder"
#endif
#define KFUZZ_STR2(x) #x
#define KFUZZ_STR(x) KFUZZ_STR2(x)

namespace {

void collect(const std::string &path, std::vector<std::string> &out) {
    struct stat sb;
    if (stat(path.c_str(), &sb) != 0) return;
    if (!S_ISDIR(sb.st_mode)) {
        out.push_back(path);
        return;
    }
    DIR *d = opendir(path.c_str());
    if (!d) return;
    std::vector<std::string> names;
    while (struct dirent *e = readdir(d))
        if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
    std::sort(names.begin(), names.end());
    for (const auto &n : names) collect(path + "/" + n, out);
}

} // namespace

int main(int argc, char **argv) {
    std::vector<std::string> files;
    if (argc > 1) {
        for (int i = 1; i < argc; ++i) collect(argv[i], files);
    } else {
        const char *srcdir = std::getenv("srcdir");
        collect(std::string(srcdir ? srcdir : ".") + "/test/fuzz/corpus/" KFUZZ_STR(KFUZZ_NAME), files);
    }
    if (files.empty()) {
        std::printf("replay " KFUZZ_STR(KFUZZ_NAME) ": no input found\n0 passed, 1 failed\n");
        return 1;
    }
    int passed = 0;
    for (const auto &f : files) {
        FILE *fp = std::fopen(f.c_str(), "rb");
        if (!fp) {
            std::printf("cannot read %s\n", f.c_str());
            continue;
        }
        std::vector<uint8_t> buf;
        uint8_t chunk[4096];
        size_t n;
        while ((n = std::fread(chunk, 1, sizeof(chunk), fp)) > 0) buf.insert(buf.end(), chunk, chunk + n);
        std::fclose(fp);
        LLVMFuzzerTestOneInput(buf.data(), buf.size());
        std::printf("ok %s (%zu bytes)\n", f.c_str(), buf.size());
        ++passed;
    }
    int failed = (int)files.size() - passed;
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
