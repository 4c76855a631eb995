package com.example.bank;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * AccountService moves money between accounts.
 */
public class AccountService {
    private final Map<String, Account> accounts = new HashMap<>();
    private final AuditLog audit;

    public AccountService(AuditLog audit) {
        this.audit = audit;
    }

    /** Opens an account with a zero balance. */
    public Account open(String id) {
        Account a = new Account(id, BigDecimal.ZERO);
        accounts.put(id, a);
        return a;
    }

    @Override
    public String toString() {
        return "AccountService(" + accounts.size() + " accounts)";
    }

    public Optional<Account> find(String id) {
        return Optional.ofNullable(accounts.get(id));
    }

    // transfer moves amount from one account to another atomically.
    public synchronized void transfer(String from, String to, BigDecimal amount) {
        Account src = find(from).orElseThrow(() -> new IllegalArgumentException(from));
        Account dst = find(to).orElseThrow(() -> new IllegalArgumentException(to));
        if (src.balance().compareTo(amount) < 0) {
            throw new InsufficientFundsException(from, amount);
        }
        accounts.put(from, src.withBalance(src.balance().subtract(amount)));
        accounts.put(to, dst.withBalance(dst.balance().add(amount)));
        audit.record(from, to, amount);
    }

    public record Account(String id, BigDecimal balance) {
        Account withBalance(BigDecimal b) {
            return new Account(id, b);
        }
    }

    static class InsufficientFundsException extends RuntimeException {
        InsufficientFundsException(String id, BigDecimal amount) {
            super("insufficient funds in " + id + " for " + amount);
        }
    }
}

interface AuditLog {
    void record(String from, String to, BigDecimal amount);
}

enum Currency {
    EUR, USD, GBP;

    String symbol() {
        return switch (this) {
            case EUR -> "€";
            case USD -> "$";
            case GBP -> "£";
        };
    }
}
