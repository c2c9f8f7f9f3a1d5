package com.bettercompute.domain.market;

/** An organization's account with the market: balance = credits − charges. */
public final class Tenant {
    final String id;
    long credits;
    /** Everything billed: {@link #settled} plus what the grants' open ledger entries have accrued. */
    long charged;
    /**
     * What the tenant's closed ledger entries add up to, with the charges billed elsewhere. It moves only when an entry closes, so a saved market
     * keeps it and works {@link #charged} out again from its grants' open entries when it is restored.
     */
    long settled;
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

    /**
     * The balance in micro-dollars. The market's own billing never takes it below zero; a charge billed elsewhere
     * ({@link Market#chargeElsewhere}) can.
     */
    public long balanceMicros() {
        return credits - charged;
    }
}
