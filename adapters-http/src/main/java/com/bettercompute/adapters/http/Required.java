package com.bettercompute.adapters.http;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a request field its method requires, for the OpenAPI document. The check itself is in the record's
 * {@code command}; {@code RequestsTest} proves the two agree.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.PARAMETER, ElementType.FIELD, ElementType.METHOD})
@interface Required {}
