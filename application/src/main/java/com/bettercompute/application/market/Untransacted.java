package com.bettercompute.application.market;

import com.bettercompute.application.port.Transactions;
import java.util.function.Supplier;

/** Runs the work as it is: for a market no one else writes (the simulator's), where no lock is needed. */
final class Untransacted implements Transactions {
    static final Transactions INSTANCE = new Untransacted();

    private Untransacted() {
    }

    @Override
    public <T> T inTransaction(Supplier<T> work) {
        return work.get();
    }
}
