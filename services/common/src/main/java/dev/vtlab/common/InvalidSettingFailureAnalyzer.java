package dev.vtlab.common;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Prints a bad setting as a one-line diagnosis instead of a stack trace at start-up. */
public class InvalidSettingFailureAnalyzer extends AbstractFailureAnalyzer<InvalidSettingException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidSettingException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Fix or unset the environment variable " + cause.variable() + " and start again.", cause);
    }
}
