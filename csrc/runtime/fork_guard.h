// fork() and PJRT clients: a plugin's client runs threads of its own, which a
// forked child does not have, so a child process must not call into a client
// its parent created (it would wait forever for work no thread does). After
// such a fork, the RAII owners let go of their plugin objects without calling
// the plugin, and the execution layer refuses to use the client.
#pragma once

namespace torchtpu::runtime {

// Called when a client is created: from then on, a forked child is marked.
void watchForks();

// True in a child process forked after a client was created in its parent.
bool forkedAfterClient();

}  // namespace torchtpu::runtime
