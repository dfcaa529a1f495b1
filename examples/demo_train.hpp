// The demo's training part (demo_train.cpp): true when it trained, its
// gradients matched finite differences and the three scratchpad modes agreed.
#ifndef KESTREL_EXAMPLES_DEMO_TRAIN_HPP
#define KESTREL_EXAMPLES_DEMO_TRAIN_HPP

bool demo_train();

#endif
