// The VCI ownership protocol: a lone owner takes no lock, borrowers exclude it through the
// asymmetric barrier, shared VCIs lock, and (debug builds) two owners at once abort.
#include <catch2/catch.hpp>

#include "../../src/core/vci.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace pgdds;

TEST_CASE("an owner and a borrower never run inside one VCI at the same time", "[vci]")
{
    REQUIRE(asymmetric_barrier_init());
    vci v;
    // A plain (non-atomic) counter: only mutual exclusion keeps the total exact.
    volatile long counter = 0;
    const long owner_iters = 300000, borrow_iters = 300;
    std::thread owner([&] {
        for (long i = 0; i < owner_iters; ++i) {
            vci_scope s(v, true, false);
            counter = counter + 1;
        }
    });
    std::thread borrower([&] {
        for (long i = 0; i < borrow_iters; ++i) {
            vci_scope s(v, true, true);
            long c = counter;
            std::this_thread::yield();  // widen the window an unprotected owner would use
            counter = c + 1;
        }
    });
    owner.join();
    borrower.join();
    CHECK(counter == owner_iters + borrow_iters);
    CHECK(v.borrowers.load() == 0);
    CHECK(v.in_op.load() == 0);
}

TEST_CASE("a shared VCI is locked", "[vci]")
{
    vci v;
    v.locked_mode = true;
    volatile long counter = 0;
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([&] {
            for (int i = 0; i < 200000; ++i) {
                vci_scope s(v, true, false);
                counter = counter + 1;
            }
        });
    for (auto &t : ts) t.join();
    CHECK(counter == 800000);
}

TEST_CASE("a borrower waits for the owner to leave its operation", "[vci]")
{
    REQUIRE(asymmetric_barrier_init());
    vci v;
    std::atomic<int> stage{0};
    std::atomic<bool> borrower_entered_early{false};
    std::thread owner([&] {
        vci_scope s(v, true, false);
        stage = 1;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        stage = 2;
    });
    while (stage.load() == 0) std::this_thread::yield();
    {
        vci_scope s(v, true, true);
        borrower_entered_early = stage.load() != 2;
    }
    owner.join();
    CHECK_FALSE(borrower_entered_early.load());
}

TEST_CASE("a switch to lock-free keeps the owner out until it has left", "[vci]")
{
    // Two owners were bound (locked mode); one leaves, and the switch back to one owner stores
    // the lock-free mode before it leaves. The remaining owner sees that mode at once, but must
    // not enter before the switch is gone.
    REQUIRE(asymmetric_barrier_init());
    vci v;
    v.owners = 1;
    v.locked_mode = true;
    std::atomic<bool> switched{false}, owner_inside{false};
    bool owner_entered_early = true;
    std::thread owner([&] {
        while (!switched.load()) std::this_thread::yield();
        vci_scope s(v, true, false);
        owner_inside = true;
    });
    {
        vci_scope s(v, vci_scope::exclusive);
        v.locked_mode.store(false);
        switched = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        owner_entered_early = owner_inside.load();
    }
    owner.join();
    CHECK_FALSE(owner_entered_early);
    CHECK(owner_inside.load());
    CHECK(v.borrowers.load() == 0);
    CHECK(v.in_op.load() == 0);
}

TEST_CASE("without threads a scope costs nothing and takes nothing", "[vci]")
{
    vci v;
    {
        vci_scope s(v, false, false);
        CHECK(v.in_op.load() == 0);
        CHECK(v.lock.try_lock());
        v.lock.unlock();
    }
}

TEST_CASE("two owners inside one unlocked VCI abort in debug builds", "[vci]")
{
#ifdef NDEBUG
    WARN("release build: the ownership assertion is compiled out");
#else
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        vci v;
        std::atomic<bool> inside{false};
        std::thread first([&] {
            vci_scope s(v, true, false);
            inside = true;
            std::this_thread::sleep_for(std::chrono::seconds(2));
        });
        while (!inside) std::this_thread::yield();
        {
            // A second thread acting as owner of the same VCI: a runtime bug this must catch.
            vci_scope s(v, true, false);
        }
        first.join();
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGABRT);
#endif
}
