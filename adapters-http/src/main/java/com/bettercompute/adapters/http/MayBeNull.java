package com.bettercompute.adapters.http;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a field of an answer record that may be written as {@code null}: the OpenAPI document declares it
 * so. Every other field of an answer is always present and never null, and the document requires it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
@interface MayBeNull {}
