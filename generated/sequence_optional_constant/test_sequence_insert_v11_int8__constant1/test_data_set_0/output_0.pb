
insertedJ