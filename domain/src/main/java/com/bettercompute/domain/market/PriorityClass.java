package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.util.Map;

/**
 * The {@code kueue.x-k8s.io/priority-class} of a job. It orders a cluster's own queue (and who takes
 * the GPUs of its base load block) and never buys market position. Declared highest first.
 */
public enum PriorityClass {
    /** Indicates the job files first when room frees under the max cluster size. */
    HIGH,
    /** Indicates the default class of the platform's priority classes. */
    NORMAL,
    /** Indicates the job files after high and normal ones. */
    LOW,
    /** Indicates a job without the label; it ranks below low. */
    NONE;

    /** Reads the label value ({@code high}, {@code normal}, {@code low}); null or empty means none. */
    public static PriorityClass fromLabel(String label) {
        if (label == null || label.isBlank()) {
            return NONE;
        }
        return switch (label) {
            case "high" -> HIGH;
            case "normal" -> NORMAL;
            case "low" -> LOW;
            default -> throw new DomainException(ErrorCode.INVALID_INPUT,
                    "a priority class is high, normal or low", Map.of("priorityClass", label));
        };
    }
}
