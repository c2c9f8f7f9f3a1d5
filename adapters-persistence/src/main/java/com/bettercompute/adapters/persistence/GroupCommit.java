package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs the writes of concurrent calls in shared transactions: one commit (one WAL flush, one turn at the
 * locks the writes take) for every call that arrived while the previous commit ran. No thread of its own:
 * the first caller that finds no commit running writes the queue's calls, the others wait for it. Every
 * caller gets its own answer only after the commit that holds its write, so nothing is acknowledged before
 * it is durable. A leader writes groups until its own call has committed, then wakes the caller that
 * queued first to lead the next (before it answers its last group's calls, so the two overlap); the others
 * park until their group has committed.
 *
 * <p>A call's {@link Work#check} may refuse it ({@link DomainException}) before it writes; the others in the
 * transaction go on. Anything else — a failure while writing, or of the commit — rolls the shared
 * transaction back, and each of its calls is then run alone in a transaction of its own, so one call's
 * failure is never another's.
 *
 * @param <I> a call's input
 * @param <R> its answer
 */
final class GroupCommit<I, R> {
    /** What one call does inside the shared transaction. */
    interface Work<I, R> {
        /**
         * Runs first in each transaction, with every call of it (to take their locks in one order); what it read for them
         * is the checks of that transaction alone, so a call in a caller's own transaction may run beside a group.
         */
        Checks<I, R> begin(List<I> calls);

        /**
         * The writes of the calls whose checks passed, in order, all at once ({@link Transactions#writesTogether}:
         * nothing written is read back here); their answers in that order.
         */
        List<R> write(List<I> calls);
    }

    /** The checks of one transaction's calls. */
    interface Checks<I, R> {
        /**
         * The call's checks, in arrival order, seeing the calls before it in the transaction as written: its
         * answer when it needs no write (the same request again, or one refused), else null. A
         * {@link DomainException} refuses this call only; a check writes nothing.
         */
        R check(I call);
    }

    /** The most calls one transaction takes: the locks it holds are held for all of them. */
    static final int MAX_CALLS = 64;

    private final Transactions tx;
    private final Work<I, R> work;
    private final ReentrantLock writer = new ReentrantLock();
    private final Queue<Call<I, R>> queue = new ConcurrentLinkedQueue<>();

    GroupCommit(Transactions tx, Work<I, R> work) {
        this.tx = tx;
        this.work = work;
    }

    private static final class Call<I, R> {
        final I input;
        final Thread caller = Thread.currentThread();
        R answer;
        RuntimeException failure;
        volatile boolean done;

        Call(I input) {
            this.input = input;
        }
    }

    /** The call's answer once its write is committed, or the exception that refused or failed it. */
    R commit(I input) {
        Call<I, R> call = new Call<>(input);
        queue.add(call);
        while (!call.done) {
            if (writer.tryLock()) {
                boolean released = false;
                try {
                    // this call is in the queue until a group takes it, and only the lock's holder takes one
                    while (!call.done && !released) {
                        released = commitQueued(call);
                    }
                } finally {
                    if (!released) {
                        release();
                    }
                }
            } else {
                // woken when its group has committed, or to lead the next one; any other wake-up looks again
                LockSupport.park(this);
            }
        }
        if (call.failure != null) {
            throw call.failure;
        }
        return call.answer;
    }

    /**
     * The call run alone in the transaction the calling thread is already in: not grouped (a group's leader may wait
     * for locks that transaction holds), and committed, or rolled back, with the caller's work.
     */
    R inCallersTransaction(I input) {
        Object outcome = run(List.of(new Call<>(input))).get(0);
        if (outcome instanceof RuntimeException failure) {
            throw failure;
        }
        @SuppressWarnings("unchecked") R answer = (R) outcome;
        return answer;
    }

    /**
     * Frees the writer and wakes the caller that queued first, to lead the next group (one that queued before
     * the unlock parked).
     */
    private void release() {
        writer.unlock();
        Call<I, R> next = queue.peek();
        if (next != null) {
            LockSupport.unpark(next.caller);
        }
    }

    /** Calls waiting for a transaction (for tests that arrange calls to arrive during a commit). */
    int queued() {
        return queue.size();
    }

    /**
     * Runs one group of the queue's calls. When the leader's own call was in it, the writer is released as soon
     * as the group's transaction has ended, before its calls are answered, so the next leader wakes while this
     * one answers (a hand-off that took a tenth of a group's time when it came after); returns whether it was.
     */
    private boolean commitQueued(Call<I, R> leader) {
        List<Call<I, R>> calls = new ArrayList<>();
        for (Call<I, R> c; calls.size() < MAX_CALLS && (c = queue.poll()) != null; ) {
            calls.add(c);
        }
        if (calls.isEmpty()) {
            return false;
        }
        List<Object> outcomes;
        try {
            outcomes = runOrEachAlone(calls);
        } catch (Error e) {
            // the callers of this group must not wait for ever: they fail, and the error goes on up
            for (Call<I, R> c : calls) {
                finish(c, null, new IllegalStateException("the group's transaction failed", e));
            }
            throw e;
        }
        boolean released = calls.contains(leader);
        if (released) {
            release();
        }
        for (int i = 0; i < calls.size(); i++) {
            Object outcome = outcomes.get(i);
            if (outcome instanceof RuntimeException failure) {
                finish(calls.get(i), null, failure);
            } else {
                @SuppressWarnings("unchecked") R answer = (R) outcome;
                finish(calls.get(i), answer, null);
            }
        }
        return released;
    }

    /** Each call's answer, or the exception that refused or failed it, in the calls' order. */
    private List<Object> runOrEachAlone(List<Call<I, R>> calls) {
        try {
            return run(calls);
        } catch (RuntimeException shared) {
            if (calls.size() == 1) {
                return List.of(shared);
            }
            List<Object> outcomes = new ArrayList<>(calls.size());
            for (Call<I, R> alone : calls) {
                try {
                    outcomes.add(run(List.of(alone)).get(0));
                } catch (RuntimeException e) {
                    outcomes.add(e);
                }
            }
            return outcomes;
        }
    }

    /** One transaction for the calls: each one's answer or refusal once it has committed. */
    private List<Object> run(List<Call<I, R>> calls) {
        return tx.inTransaction(() -> {
            Checks<I, R> checks = work.begin(calls.stream().map(c -> c.input).toList());
            List<Object> out = new ArrayList<>(calls.size());
            List<Integer> toWrite = new ArrayList<>();
            for (Call<I, R> c : calls) {
                try {
                    R answer = checks.check(c.input);
                    if (answer == null) {
                        toWrite.add(out.size());
                    }
                    out.add(answer);
                } catch (DomainException refused) {
                    out.add(refused);
                }
            }
            if (!toWrite.isEmpty()) {
                List<R> written = tx.writesTogether(() -> work.write(toWrite.stream().map(i -> calls.get(i).input).toList()));
                for (int k = 0; k < toWrite.size(); k++) {
                    out.set(toWrite.get(k), written.get(k));
                }
            }
            return out;
        });
    }

    private static <I, R> void finish(Call<I, R> call, R answer, RuntimeException failure) {
        call.answer = answer;
        call.failure = failure;
        call.done = true;
        LockSupport.unpark(call.caller);
    }
}
