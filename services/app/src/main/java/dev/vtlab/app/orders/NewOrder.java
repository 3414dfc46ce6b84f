package dev.vtlab.app.orders;

import java.util.regex.Pattern;

/**
 * The body of POST /api/orders. Fields are boxed so that a missing one is told apart from a zero;
 * {@link #validated()} names the first field that is wrong.
 */
public record NewOrder(Long customerId, Long totalCents, String currency, Integer itemCount) {

    static final int MAX_ITEMS = 1000;
    static final long MAX_TOTAL_CENTS = 100_000_000_00L;
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    NewOrder validated() {
        if (customerId == null || customerId < 1) {
            throw new InvalidNewOrderException("customerId", "a positive integer", customerId);
        }
        if (totalCents == null || totalCents < 0 || totalCents > MAX_TOTAL_CENTS) {
            throw new InvalidNewOrderException("totalCents", "an integer from 0 to " + MAX_TOTAL_CENTS, totalCents);
        }
        if (currency == null || !CURRENCY.matcher(currency).matches()) {
            throw new InvalidNewOrderException("currency", "three upper-case letters (ISO 4217, e.g. EUR)", currency);
        }
        if (itemCount == null || itemCount < 1 || itemCount > MAX_ITEMS) {
            throw new InvalidNewOrderException("itemCount", "an integer from 1 to " + MAX_ITEMS, itemCount);
        }
        return this;
    }
}
