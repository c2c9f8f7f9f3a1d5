package com.bettercompute.domain.market;

/** An organization's account with the market: balance = credits − charges. */
public final class Tenant {
    final String id;
    long credits;
    long charged;
    /** The tenant's position in the market's tenant order: the index of its per-tick figures. */
    final int slot;

    Tenant(String id, int slot, long credits) {
        this.id = id;
        this.slot = slot;
        this.credits = credits;
    }

    public String id() {
        return id;
    }

    public Money credits() {
        return Money.ofMicros(credits);
    }

    public Money charged() {
        return Money.ofMicros(charged);
    }

    /** The balance in micro-dollars; billing never takes it below zero. */
    public long balanceMicros() {
        return credits - charged;
    }
}
