package com.bettercompute.domain.loadbalancer;

/** A refusal and the sentence an Event on the Service says it in. */
public record Refusal(RefusalReason reason, String message) {
}
