package com.bettercompute.domain.catalog;

/** A subnet of a network in one region; {@code ready} or not yet. */
public record Subnet(String name, String region, String state) {
    public boolean ready() {
        return "ready".equals(state);
    }
}
