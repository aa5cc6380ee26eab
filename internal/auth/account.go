package auth

import (
	"context"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"logistics/ent"
	"logistics/ent/session"
	"logistics/ent/user"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// ChangePassword sets a signed-in user's password. The current password
// must be given (a session left open on a shared screen cannot take the
// account over); every other session of the user ends, the one making the
// change (keepSession) stays. The new hash and the ended sessions commit
// together.
func (s *Store) ChangePassword(ctx context.Context, userID, keepSession, current, next string) error {
	u, err := s.client.User.Get(ctx, resourceid.ID(userID))
	if err != nil {
		return err
	}
	if !CheckPassword(u.PasswordHash, current) {
		return apperr.Invalid("currentPassword", "the current password is not correct")
	}
	if current == next {
		return apperr.Invalid("newPassword", "choose a password different from the current one")
	}
	return s.setPassword(ctx, u, next, keepSession)
}

// ResetPassword sets the password of the user with the given email (the
// `users reset-password` command) and ends all of that user's sessions.
func (s *Store) ResetPassword(ctx context.Context, email, password string) (*ent.User, error) {
	u, err := s.client.User.Query().Where(user.EmailEQ(strings.ToLower(strings.TrimSpace(email)))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("no user with email %q", email)
	} else if err != nil {
		return nil, err
	}
	return u, s.setPassword(ctx, u, password, "")
}

func (s *Store) setPassword(ctx context.Context, u *ent.User, password, keepSession string) error {
	if len(password) < MinPasswordLength || len(password) > 72 {
		return apperr.Invalid("newPassword", "must have between %d and 72 characters", MinPasswordLength)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), s.PasswordCost)
	if err != nil {
		return err
	}
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return err
	}
	if err := tx.User.UpdateOne(u).SetPasswordHash(string(h)).Exec(ctx); err != nil {
		_ = tx.Rollback()
		return err
	}
	del := tx.Session.Delete().Where(session.UserID(u.ID))
	if keepSession != "" {
		del = del.Where(session.IDNEQ(resourceid.ID(keepSession)))
	}
	if _, err := del.Exec(ctx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
