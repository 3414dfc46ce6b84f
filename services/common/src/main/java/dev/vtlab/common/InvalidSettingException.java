package dev.vtlab.common;

/**
 * A start-up setting (environment variable) with an unusable value. The message always names the
 * variable and the accepted values, because that is all an operator needs to fix the run.
 */
public class InvalidSettingException extends IllegalStateException {

    private final String variable;

    public InvalidSettingException(String variable, String expectation, String actual) {
        super("%s must be %s, got '%s'".formatted(variable, expectation, actual));
        this.variable = variable;
    }

    public String variable() {
        return variable;
    }
}
