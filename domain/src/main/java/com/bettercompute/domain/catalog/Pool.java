package com.bettercompute.domain.catalog;

/** A pool of capacity on one account; {@code kindName} keeps the catalog's spelling of its kind. */
public record Pool(String id, String accountId, PoolKind kind, String kindName, BillingMode billingMode) {}
