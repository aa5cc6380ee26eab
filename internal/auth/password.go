package auth

import (
	"crypto/rand"
	"errors"

	"golang.org/x/crypto/bcrypt"
)

// PasswordCost is the bcrypt cost of new password hashes (2^12 rounds,
// about a quarter of a second on one core).
const PasswordCost = 12

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 10

// HashPassword returns the bcrypt hash of password.
func HashPassword(password string) (string, error) {
	if len(password) < MinPasswordLength {
		return "", errors.New("the password must have at least 10 characters")
	}
	if len(password) > 72 {
		return "", errors.New("the password must have at most 72 bytes")
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), PasswordCost)
	return string(h), err
}

// CheckPassword reports whether password matches hash, in constant time.
func CheckPassword(hash, password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// GeneratePassword returns a random password of 26 characters (130 bits).
func GeneratePassword() string { return rand.Text() }
