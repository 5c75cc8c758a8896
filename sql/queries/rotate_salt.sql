-- Rotates a project's visitor-hashing salt, keeping the previous one so sessions survive midnight.
-- $1 id, $2 new salt
update projects set previous_salt = salt, salt = $2, salt_rotated_at = now() where id = $1
