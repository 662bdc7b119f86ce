; no instructions at all
