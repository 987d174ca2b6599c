2🙂 ümlautB
inserted_1