-- Projects that hash visitors with a salt rotated daily, and when it last rotated.
-- returns id, salt_rotated_at
select id, salt_rotated_at from projects where daily_salt
