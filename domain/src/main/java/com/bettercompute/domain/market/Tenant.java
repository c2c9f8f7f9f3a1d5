package com.bettercompute.domain.market;

/** An organization's account with the market: balance = credits − charges. */
public final class Tenant {
    final String id;
    long credits;
    long charged;
    /** What the tenant's running grants cost over the balance horizon; recomputed at every tick. */
    long runningCost;

    Tenant(String id, long credits) {
        this.id = id;
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

    /** The balance in micro-dollars; negative once charges pass credits. */
    public long balanceMicros() {
        return credits - charged;
    }
}
