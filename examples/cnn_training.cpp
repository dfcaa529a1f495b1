// Training a small CNN with the C++ API.
//
// The network, its forward_training and backward primitives and the SGD
// update are in cnn_trainer.hpp (public API only). This program trains it for
// a few steps, checks the first step's gradients against central finite
// differences of the loss, and trains once more with a user-managed
// scratchpad to show that the scratchpad mode never changes the numbers.
// It exits with status 0 only when the loss falls to below half its first
// value, every checked gradient matches, and both runs agree bit for bit.
//
// Build against an installed Kestrel:
//   c++ -std=c++17 cnn_training.cpp $(pkg-config --cflags --libs dnnl)
#include <cstdio>
#include <vector>

#include "cnn_trainer.hpp"

int main() {
    std::printf("conv3x3+relu, conv3x3+relu, maxpool, inner product, logsoftmax; "
                "batch %d, %d steps of SGD at learning rate %.2f\n",
            (int)N, steps, learning_rate);
    bool grads_ok = true;
    std::vector<double> losses[2];
    for (int user = 0; user < 2; ++user) {
        trainer_t t(user ? scratchpad_mode::user : scratchpad_mode::library);
        // User mode: one buffer, as large as the largest scratchpad, serves
        // all 16 primitives, as they run one after another.
        memory scratch({{(memory::dim)std::max<size_t>(t.max_scratchpad(), 1)}, dt::u8, tag::x},
                t.eng);
        const memory *sp = user ? &scratch : nullptr;
        for (int it = 0; it < steps; ++it) {
            losses[user].push_back(t.forward(sp));
            t.run(t.bwd, sp);
            if (!user && it == 0) {
                std::printf("gradients of step 1 against finite differences of the loss:\n");
                grads_ok = check_gradient(t, t.w1, t.dw1, 5, "conv1.weights") && grads_ok;
                grads_ok = check_gradient(t, t.b1, t.db1, 2, "conv1.bias") && grads_ok;
                grads_ok = check_gradient(t, t.w2, t.dw2, 100, "conv2.weights") && grads_ok;
                grads_ok = check_gradient(t, t.w3, t.dw3, 37, "ip.weights") && grads_ok;
                grads_ok = check_gradient(t, t.b3, t.db3, 1, "ip.bias") && grads_ok;
            }
            t.sgd();
        }
        if (user) std::printf("user mode: one scratchpad buffer of %zu bytes\n", t.max_scratchpad());
    }
    std::printf("loss by step:");
    for (double l : losses[0]) std::printf(" %.3f", l);
    std::printf("\n");
    const bool falls = losses[0].back() < 0.5 * losses[0].front();
    const bool same = losses[0] == losses[1];
    std::printf("loss fell below half: %s; library and user mode identical: %s\n",
            falls ? "yes" : "NO", same ? "yes" : "NO");
    const bool ok = grads_ok && falls && same;
    std::printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
