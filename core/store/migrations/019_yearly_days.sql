-- Days that come round every year ("Maya's birthday is December 3rd"): what is coming up looks for
-- them however long ago they were said. Few episodes keep one, so their index is small and the look is
-- not a pass over every episode's time references.
CREATE INDEX episodes_naming_yearly ON episodes (owner_id, start_at DESC) WHERE metadata->'timeReferences' @> '[{"yearly": true}]';
