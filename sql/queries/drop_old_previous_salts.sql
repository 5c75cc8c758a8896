-- Forgets previous salts 48 hours after they were replaced: past that, no live session needs one, and a
-- kept salt would let a day's hashed ids be linked to the next day's.
-- returns id
update projects set previous_salt = null
where previous_salt is not null and salt_rotated_at < now() - interval '48 hours'
returning id
