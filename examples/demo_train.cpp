// The demo's training part: a small CNN trained for a few steps of SGD,
// written as a oneDNN v3 training program is (forward_training primitives,
// their workspaces, backward data and backward weights primitives created
// with the forward primitive descriptors as hints), run in the three
// scratchpad modes. It shows the loss falling, checks the gradients of the
// first step against central finite differences of the loss, and reports the
// scratchpad memory the forward and backward primitives hold in each mode.
//
// The network and its trainer are in cnn_trainer.hpp, shared with the
// training example.
#include <cstdio>
#include <vector>

#include "core/primitive.hpp"
#include "scratchpad/arena.hpp"

#include "cnn_trainer.hpp"
#include "demo_train.hpp"

bool demo_train() {
    using kestrel::scratchpad_policy_t;
    std::printf("\nTraining: conv3x3+relu, conv3x3+relu, maxpool (workspace), inner product, logsoftmax;\n"
                "N=%d, %d steps of SGD (learning rate %.2f), backward with the forward pds as hints.\n",
            (int)N, steps, learning_rate);
    bool ok = true;
    std::vector<double> losses[3];
    size_t held[3] = {};
    const char *mode_name[3] = {"library mode, global arena:", "library mode, private scratchpads:",
            "user mode, one shared buffer:"};
    for (int mode = 0; mode < 3; ++mode) {
        kestrel::set_library_scratchpad_policy(
                mode == 1 ? scratchpad_policy_t::private_buffer : scratchpad_policy_t::global_arena);
        trainer_t t(mode == 2 ? scratchpad_mode::user : scratchpad_mode::library);
        const size_t user_size = t.max_scratchpad();
        memory scratch({{(memory::dim)std::max<size_t>(user_size, 1)}, dt::u8, tag::x}, t.eng);
        const memory *sp = mode == 2 ? &scratch : nullptr;
        for (int it = 0; it < steps; ++it) {
            losses[mode].push_back(t.forward(sp));
            t.run(t.bwd, sp);
            if (mode == 0 && it == 0) {
                std::printf("  gradients of step 1 against finite differences of the loss:\n");
                ok = check_gradient(t, t.w1, t.dw1, 5, "conv1.weights") && ok;
                ok = check_gradient(t, t.b2, t.db2, 3, "conv2.bias") && ok;
                ok = check_gradient(t, t.w2, t.dw2, 100, "conv2.weights") && ok;
                ok = check_gradient(t, t.w3, t.dw3, 37, "ip.weights") && ok;
            }
            if (mode == 0 && it == 0) held[0] = kestrel::scratchpad::arena_t::global().stats().held_total;
            t.sgd();
        }
        if (mode == 1) held[1] = t.sum_consumption();
        if (mode == 2) held[2] = user_size;
    }
    kestrel::set_library_scratchpad_policy(scratchpad_policy_t::global_arena);

    std::printf("  loss by step:");
    for (double l : losses[0]) std::printf(" %.3f", l);
    std::printf("\n");
    const bool falls = losses[0].back() < 0.5 * losses[0].front();
    std::printf("  loss fell from %.3f to %.3f: %s\n", losses[0].front(), losses[0].back(), falls ? "yes" : "NO");
    // Different scratchpad modes change where partial sums live, never the
    // order they are added in: the three runs agree exactly.
    const bool same = losses[0] == losses[1] && losses[0] == losses[2];
    std::printf("  losses of the three scratchpad modes identical: %s\n", same ? "yes" : "NO");
    std::printf("  scratchpad memory held by the 16 forward and backward primitives:\n");
    for (int m = 0; m < 3; ++m) std::printf("    %-38s %10zu bytes\n", mode_name[m], held[m]);
    return ok && falls && same;
}
