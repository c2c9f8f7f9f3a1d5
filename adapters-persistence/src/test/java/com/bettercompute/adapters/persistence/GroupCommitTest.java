package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Calls that arrive while a transaction commits share the next one; a call refused by its checks is refused
 * alone; a failure while writing rolls the shared transaction back and each call is run again on its own.
 */
@Timeout(60)
class GroupCommitTest {
    /** Each transaction's calls and whether it committed. */
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch firstMayCommit = new CountDownLatch(1);
    final Transactions tx = new Transactions() {
        @Override
        public <T> T inTransaction(Supplier<T> work) {
            try {
                T result = work.get();
                log.add("commit");
                return result;
            } catch (RuntimeException | Error e) {
                log.add("rollback");
                throw e;
            }
        }
    };
    final GroupCommit<String, String> commit = new GroupCommit<>(tx, new GroupCommit.Work<>() {
        @Override
        public GroupCommit.Checks<String, String> begin(List<String> calls) {
            log.add(String.join(",", calls));
            if (calls.contains("first")) {
                await(firstMayCommit);
            }
            return call -> {
                if (call.startsWith("refused")) {
                    throw new DomainException(ErrorCode.CONFLICT, "refused " + call);
                }
                return call.startsWith("again") ? "earlier " + call : null;
            };
        }

        @Override
        public List<String> write(List<String> calls) {
            log.add("write " + String.join(",", calls));
            if (calls.stream().anyMatch(c -> c.startsWith("broken"))) {
                throw new IllegalStateException("broken write");
            }
            if (calls.stream().anyMatch(c -> c.startsWith("error"))) {
                throw new AssertionError("not an exception");
            }
            return calls.stream().map(c -> "wrote " + c).toList();
        }
    });

    /** Starts "first", which holds its transaction open, then the others, which queue behind it; then lets it commit. */
    Map<String, Object> during(String... others) throws InterruptedException {
        Map<String, Object> answers = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        threads.add(call("first", answers));
        while (!log.contains("first")) {
            Thread.onSpinWait();
        }
        for (String other : others) {
            threads.add(call(other, answers));
            // one at a time, so they queue in this order
            while (commit.queued() < threads.size() - 1) {
                Thread.onSpinWait();
            }
        }
        firstMayCommit.countDown();
        for (Thread t : threads) {
            t.join();
        }
        return answers;
    }

    Thread call(String name, Map<String, Object> answers) {
        Thread t = new Thread(() -> {
            try {
                answers.put(name, commit.commit(name));
            } catch (RuntimeException | Error e) {
                answers.put(name, e);
            }
        });
        t.start();
        return t;
    }

    @Test
    void calls_that_arrive_during_a_commit_share_the_next_transaction() throws InterruptedException {
        Map<String, Object> answers = during("b", "again-c", "d");

        assertThat(log).containsExactly("first", "write first", "commit", "b,again-c,d", "write b,d", "commit");
        assertThat(answers).containsExactlyInAnyOrderEntriesOf(Map.of(
                "first", "wrote first", "b", "wrote b", "again-c", "earlier again-c", "d", "wrote d"));
    }

    @Test
    void a_call_refused_by_its_checks_is_refused_alone_and_the_others_commit() throws InterruptedException {
        Map<String, Object> answers = during("b", "refused-c", "d");

        assertThat(log).containsExactly("first", "write first", "commit", "b,refused-c,d", "write b,d", "commit");
        assertThat((Throwable) answers.get("refused-c")).isInstanceOf(DomainException.class).hasMessage("refused refused-c");
        assertThat(answers).containsEntry("b", "wrote b").containsEntry("d", "wrote d");
    }

    @Test
    void a_failed_write_rolls_the_shared_transaction_back_and_each_call_runs_alone() throws InterruptedException {
        Map<String, Object> answers = during("b", "broken-c", "d");

        assertThat(log).containsExactly("first", "write first", "commit", "b,broken-c,d", "write b,broken-c,d", "rollback",
                "b", "write b", "commit", "broken-c", "write broken-c", "rollback", "d", "write d", "commit");
        assertThat(answers.get("broken-c")).isInstanceOf(IllegalStateException.class);
        assertThat(answers).containsEntry("b", "wrote b").containsEntry("d", "wrote d");
    }

    @Test
    void a_call_in_the_callers_transaction_runs_alone_in_it_and_never_waits_for_a_group() {
        // "first" would hold a group's transaction open: a call in a transaction of its own must not queue behind it
        assertThat(commit.inCallersTransaction("b")).isEqualTo("wrote b");
        assertThat(commit.inCallersTransaction("again-c")).isEqualTo("earlier again-c");
        assertThatThrownBy(() -> commit.inCallersTransaction("refused-d")).isInstanceOf(DomainException.class).hasMessage("refused refused-d");
        assertThat(commit.queued()).isZero();
        assertThat(log).containsExactly("b", "write b", "commit", "again-c", "commit", "refused-d", "commit");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void an_error_that_is_no_exception_fails_the_whole_group_and_leaves_no_caller_waiting() throws InterruptedException {
        Map<String, Object> answers = during("b", "error-c", "d");

        assertThat(answers).containsEntry("first", "wrote first");
        assertThat(answers.values()).filteredOn(AssertionError.class::isInstance).hasSize(1);
        assertThat(answers.values()).filteredOn(IllegalStateException.class::isInstance).hasSize(2);
        assertThat(log).containsExactly("first", "write first", "commit", "b,error-c,d", "write b,error-c,d", "rollback");
    }

    @Test
    void many_callers_at_once_each_get_their_own_answer_once_and_every_write_is_committed_once() throws InterruptedException {
        // the leader hands the writer on before it answers its group: no caller may be lost or answered twice
        firstMayCommit.countDown();
        Map<String, Object> answers = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            int thread = t;
            Thread caller = new Thread(() -> {
                for (int i = 0; i < 200; i++) {
                    String name = "t" + thread + "-" + i + (i % 50 == 7 ? "-refused" : "");
                    String call = name.endsWith("-refused") ? "refused-" + name : name;
                    try {
                        answers.put(call, commit.commit(call));
                    } catch (RuntimeException e) {
                        answers.put(call, e);
                    }
                }
            });
            threads.add(caller);
            caller.start();
        }
        for (Thread t : threads) {
            t.join(60_000);
            assertThat(t.isAlive()).as("a caller still waiting").isFalse();
        }

        assertThat(answers).hasSize(16 * 200);
        answers.forEach((call, answer) -> {
            if (call.startsWith("refused")) {
                assertThat(answer).isInstanceOf(DomainException.class);
            } else {
                assertThat(answer).isEqualTo("wrote " + call);
            }
        });
        List<String> written = new ArrayList<>();
        synchronized (log) {
            log.stream().filter(l -> l.startsWith("write ")).forEach(l -> written.addAll(List.of(l.substring(6).split(","))));
            assertThat(log).doesNotContain("rollback");
        }
        assertThat(written).doesNotHaveDuplicates().hasSize((int) answers.keySet().stream().filter(c -> !c.startsWith("refused")).count());
    }
}
